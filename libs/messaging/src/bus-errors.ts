/**
 * The ways a bus request can fail, as distinct classes because callers answer each differently
 * (CONTRACT §2): no responder and unavailable → 503, timeout → 504, handler failure → a bug on
 * the serving side (500), never a business answer (those travel as reply values).
 */
export abstract class BusError extends Error {}

/** Nobody serves the subject right now (NATS "503 no responders"; in process: no handler). */
export class BusNoResponderError extends BusError {
  override readonly name = 'BusNoResponderError';

  constructor(readonly subject: string) {
    super(`no responder for ${subject}`);
  }
}

/** A responder exists (or existed) but did not answer within the request's timeout. */
export class BusTimeoutError extends BusError {
  override readonly name = 'BusTimeoutError';

  constructor(
    readonly subject: string,
    readonly timeoutMs: number,
  ) {
    super(`no reply on ${subject} within ${timeoutMs} ms`);
  }
}

/** The bus itself cannot be used: not connected (yet, or any more) or closed. */
export class BusUnavailableError extends BusError {
  override readonly name = 'BusUnavailableError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The serving handler threw; `message` is the handler's error message. */
export class BusHandlerError extends BusError {
  override readonly name = 'BusHandlerError';

  constructor(
    readonly subject: string,
    message: string,
  ) {
    super(message);
  }
}
