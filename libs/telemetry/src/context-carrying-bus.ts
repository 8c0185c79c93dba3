import type {
  BusHandler,
  BusMessage,
  BusRequestOptions,
  BusServeOptions,
  BusSubscription,
  MessageBus,
} from '@jumbe/messaging';
import { context, propagation, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { REQUEST_ID_HEADER } from './request-id-header';
import { inSpan, tracingActive } from './spans';

/**
 * Carries the trace of a command across the bus in its headers (W3C `traceparent`), so the work
 * it causes on the other side is part of the same trace: each request is a client span
 * `bus request <command>`, each handling a server span `bus handle <command>` (its child). With
 * tracing off a command passes as it is: no span, nothing added to its headers (building the
 * no-op spans, their attributes and a copy of the headers was a visible share of a send).
 */
export class ContextCarryingBus implements MessageBus {
  constructor(private readonly inner: MessageBus) {}

  request(subject: string, payload: unknown, options: BusRequestOptions): Promise<unknown> {
    if (!tracingActive()) return this.inner.request(subject, payload, options);
    const command = commandOf(payload, subject);
    const requestId = options.headers?.[REQUEST_ID_HEADER];
    return inSpan(
      `bus request ${command}`,
      { kind: SpanKind.CLIENT, attributes: spanAttributes(subject, command, requestId) },
      () => {
        const headers: Record<string, string> = { ...options.headers };
        propagation.inject(context.active(), headers);
        return this.inner.request(subject, payload, { ...options, headers });
      },
    );
  }

  serve(subject: string, handler: BusHandler, options?: BusServeOptions): Promise<BusSubscription> {
    return this.inner.serve(
      subject,
      (payload, message) =>
        tracingActive() ? handleInContext(handler, payload, message) : handler(payload, message),
      options,
    );
  }

  check(): Promise<void> {
    return this.inner.check();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Runs the handler inside the requester's trace. */
function handleInContext(handler: BusHandler, payload: unknown, message: BusMessage): Promise<unknown> {
  const requestId = message.headers[REQUEST_ID_HEADER];
  const command = commandOf(payload, 'unknown');
  const parent = propagation.extract(ROOT_CONTEXT, message.headers);
  return inSpan(
    `bus handle ${command}`,
    { kind: SpanKind.SERVER, attributes: spanAttributes(undefined, command, requestId) },
    () => handler(payload, message),
    parent,
  );
}

/** A command's type (`message.send`): a span name of bounded variety, unlike subjects with shard numbers. */
function commandOf(payload: unknown, fallback: string): string {
  const type = (payload as { type?: unknown } | null | undefined)?.type;
  return typeof type === 'string' ? type : fallback;
}

function spanAttributes(subject: string | undefined, command: string, requestId: string | undefined) {
  const attributes: Record<string, string> = { 'messaging.system': 'nats', 'jumbe.command': command };
  if (subject !== undefined) attributes['messaging.destination.name'] = subject;
  if (requestId !== undefined) attributes['jumbe.request_id'] = requestId;
  return attributes;
}
