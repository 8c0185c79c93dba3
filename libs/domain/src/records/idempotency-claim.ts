/** What claiming an Idempotency-Key found (CONTRACT §5). */
export type IdempotencyClaim =
  /**
   * The caller holds the key now. `afterUnknownOutcome`: an earlier try under it timed out (504)
   * and may have been sent: a try that cannot reach a worker now must not answer as if nothing was.
   */
  | { kind: 'new'; afterUnknownOutcome?: boolean }
  | { kind: 'replay'; statusCode: number; response: unknown }
  | { kind: 'conflict' }
  | { kind: 'in_flight' };
