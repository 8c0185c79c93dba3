import { EgressError } from './egress-error';

/** The whole exchange (DNS, connect, TLS, response headers and body) outlived its deadline. */
export class EgressTimeoutError extends EgressError {
  override readonly name = 'EgressTimeoutError';
  readonly code = 'timeout';

  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
  }
}
