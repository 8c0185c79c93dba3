/**
 * Text carried beside a payload (NATS message headers): what describes the request rather than
 * being part of it, such as the caller's request id and trace context. Names are case-sensitive.
 */
export type BusHeaders = Readonly<Record<string, string>>;

/** A request as its handler receives it, beside the payload. */
export interface BusMessage {
  headers: BusHeaders;
}

/** Serves one subject. Business outcomes are return values (callers define reply envelopes); a
 *  throw means the handler failed and reaches the requester as BusHandlerError. */
export type BusHandler = (payload: unknown, message: BusMessage) => Promise<unknown>;

export interface BusRequestOptions {
  timeoutMs: number;
  /** Sent with the request and handed to its handler (`BusMessage.headers`). */
  headers?: BusHeaders;
}

export interface BusServeOptions {
  /** Servers sharing a queue group split the requests: each request goes to one of them. */
  queue?: string;
}

export interface BusSubscription {
  /** Stops taking requests and resolves once the ones already taken have been answered. */
  unsubscribe(): Promise<void>;
}

/**
 * Request/reply between services (gateway → session worker, gateway → webhook dispatcher).
 * Payloads and replies are JSON values: whatever does not survive JSON.stringify/parse does not
 * cross, in either implementation.
 *
 * Subjects are NATS subjects: dot-separated tokens; in `serve`, `*` matches one token and `>`
 * the rest. Without a queue group every server of a subject receives the request and the first
 * reply wins.
 *
 * (Durable event streams — inbound messages on JetStream — are a separate port, to come.)
 */
export interface MessageBus {
  /**
   * Sends `payload` and resolves with the reply. Rejects with BusNoResponderError,
   * BusTimeoutError, BusUnavailableError or BusHandlerError.
   */
  request(subject: string, payload: unknown, options: BusRequestOptions): Promise<unknown>;

  /** Handles requests concurrently; the subscription survives reconnects. */
  serve(subject: string, handler: BusHandler, options?: BusServeOptions): Promise<BusSubscription>;

  /** Readiness probe: resolves when usable, rejects with BusUnavailableError. */
  check(): Promise<void>;

  /** Stops serving (answering what was already taken), then disconnects. */
  close(): Promise<void>;
}
