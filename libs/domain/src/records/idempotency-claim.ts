/** What claiming an Idempotency-Key found (CONTRACT §5). */
export type IdempotencyClaim =
  | { kind: 'new' }
  | { kind: 'replay'; statusCode: number; response: unknown }
  | { kind: 'conflict' }
  | { kind: 'in_flight' };
