import { ERRORS, type ErrorCode } from './error-codes';

/**
 * An error that reaches the client as the contract's envelope:
 * `{ message, error: { code, details? } }` with the status that belongs to the code, and the
 * code's own message (ERRORS) unless the thrower knows something more specific.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string = ERRORS[code].message,
    readonly details?: unknown,
    /** Extra response headers, e.g. Retry-After on 429 and 503. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERRORS[code].status;
  }

  toBody(): { message: string; error: { code: ErrorCode; details?: unknown } } {
    return {
      message: this.message,
      error: this.details === undefined ? { code: this.code } : { code: this.code, details: this.details },
    };
  }
}
