/**
 * The first import of every service's main.ts (`@jumbe/telemetry/tracing`), so the
 * instrumentations patch http, pg and ioredis before anything requires them. It imports nothing
 * else of Jumbe: the SDK is loaded only when tracing is switched on, so a service that does not
 * trace pays nothing for it.
 */

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Tracing is off unless the standard variables ask for it: an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or an exporter
 * (OTEL_TRACES_EXPORTER other than `none`); OTEL_SDK_DISABLED=true turns it off whatever else is
 * set. So by default nothing is exported anywhere, not even to the OTLP default on localhost.
 */
export function tracingRequested(env: Environment): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (exporters.length > 0) return !exporters.includes('none');
  return Boolean(
    env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim() || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim(),
  );
}

let started = false;

/** Starts the OpenTelemetry SDK for `serviceName` (OTEL_SERVICE_NAME wins) when tracing is requested. */
export function startTracing(serviceName: string, env: Environment = process.env): boolean {
  if (!tracingRequested(env)) return false;
  // Required here, not imported above: loading the SDK is the cost that tracing switched off avoids.
  const { startTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  startTracingSdk(env['OTEL_SERVICE_NAME']?.trim() ? undefined : serviceName);
  started = true;
  return true;
}

/** Sends the spans still buffered (the batch processor holds them up to OTEL_BSP_SCHEDULE_DELAY) and stops. */
export async function stopTracing(): Promise<void> {
  if (!started) return;
  started = false;
  const { stopTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  await stopTracingSdk();
}
