import type {
  BusHandler,
  BusMessage,
  BusRequestOptions,
  BusServeOptions,
  BusSubscription,
  MessageBus,
} from '@jumbe/messaging';
import { context, propagation, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { currentRequestId, REQUEST_ID_HEADER, withRequestId } from './request-context';
import { inSpan } from './spans';

/**
 * Carries the context of a command across the bus in its headers, so the work it causes on the
 * other side is seen as part of the same request: the request id (`Jumbe-Request-Id`, in the
 * handler's log lines) and the trace (W3C `traceparent`, when tracing is on). Each request is a
 * client span `bus request <command>`, each handling a server span `bus handle <command>`.
 */
export class ContextCarryingBus implements MessageBus {
  constructor(private readonly inner: MessageBus) {}

  request(subject: string, payload: unknown, options: BusRequestOptions): Promise<unknown> {
    const command = commandOf(payload, subject);
    const requestId = currentRequestId();
    return inSpan(
      `bus request ${command}`,
      { kind: SpanKind.CLIENT, attributes: spanAttributes(subject, command, requestId) },
      () => {
        const headers: Record<string, string> = { ...options.headers };
        if (requestId !== undefined) headers[REQUEST_ID_HEADER] = requestId;
        propagation.inject(context.active(), headers);
        return this.inner.request(subject, payload, { ...options, headers });
      },
    );
  }

  serve(subject: string, handler: BusHandler, options?: BusServeOptions): Promise<BusSubscription> {
    return this.inner.serve(
      subject,
      (payload, message) => handleInContext(handler, payload, message),
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

/** Runs the handler inside the requester's trace and request id. */
function handleInContext(handler: BusHandler, payload: unknown, message: BusMessage): Promise<unknown> {
  const requestId = message.headers[REQUEST_ID_HEADER];
  const command = commandOf(payload, 'unknown');
  const parent = propagation.extract(ROOT_CONTEXT, message.headers);
  return withRequestId(requestId, () =>
    inSpan(
      `bus handle ${command}`,
      { kind: SpanKind.SERVER, attributes: spanAttributes(undefined, command, requestId) },
      () => handler(payload, message),
      parent,
    ),
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
