/**
 * The coordination store (Redis) cannot be reached right now. Callers map it to
 * 503 `unavailable` (CONTRACT §2); it is transient by nature, so it never means "no" or "not found".
 */
export class CoordinationUnavailableError extends Error {
  override readonly name = 'CoordinationUnavailableError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
