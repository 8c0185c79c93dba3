import { EgressError } from './egress-error';

/** A download announced (Content-Length) or streamed more bytes than it may; reading stopped there. */
export class EgressTooLargeError extends EgressError {
  override readonly name = 'EgressTooLargeError';
  readonly code = 'too_large';

  constructor(readonly maxBytes: number) {
    super(`response is larger than the limit of ${maxBytes} bytes`);
  }
}
