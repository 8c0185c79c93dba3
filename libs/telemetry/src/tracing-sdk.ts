import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { IncomingMessage } from 'node:http';

/** Probes and scrapes: a span for each would drown the traces that matter. */
const UNTRACED_PATHS = ['/metrics', '/api/v1/health'];

let running: NodeSDK | null = null;

/**
 * The OpenTelemetry Node SDK, traces only (metrics stay with Prometheus, logs with stdout),
 * configured by the standard OTEL_* variables (exporter, endpoint, protocol, sampler, batch
 * delays, resource attributes). Spans: HTTP servers and clients (the API's requests; webhook
 * POSTs and media downloads, which go through undici), PostgreSQL queries and Redis commands made for a traced request, and Jumbe's own bus,
 * event-stream and network spans.
 */
export function startTracingSdk(serviceName: string | undefined): void {
  if (running) return;
  const sdk = new NodeSDK({
    serviceName,
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) =>
          UNTRACED_PATHS.some((path) => request.url === path || request.url?.startsWith(`${path}/`)),
      }),
      // libs/egress speaks HTTP through undici, which node:http's instrumentation does not see.
      new UndiciInstrumentation(),
      // Queries and commands alone (lease renewals, cache refreshes) would each be a trace of one span.
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  running = sdk;
}

/** Sends the spans still buffered, then stops tracing (a service's last step before exiting). */
export async function stopTracingSdk(): Promise<void> {
  const sdk = running;
  running = null;
  await sdk?.shutdown();
}
