/** One number is connected to at most one session (spec, What the service does §9): 409 `number_in_use`. */
export class NumberInUseError extends Error {
  override readonly name = 'NumberInUseError';
  readonly code = 'number_in_use';

  constructor(readonly phoneNumber: string) {
    super(`number ${phoneNumber} is already connected to another session`);
  }
}
