import {
  type Context,
  context,
  ProxyTracerProvider,
  type Span,
  type SpanOptions,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/**
 * Jumbe's own spans. Through the OpenTelemetry API only: until the SDK is started (tracing
 * switched on, see tracing.ts) the API hands out non-recording spans that cost next to nothing.
 */
const tracer = trace.getTracer('jumbe');

/**
 * Whether spans are recorded at all: an SDK registered its tracer provider (tracing.ts starts one
 * when asked to). Off, a hot path may skip building span names, attributes and header copies that
 * the no-op spans would throw away.
 */
export function tracingActive(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer('jumbe') !== undefined;
}

/** Runs `work` inside a new span (a child of `parent`, else of the active context), ended when it settles. */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  return tracer.startActiveSpan(name, options, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  });
}
