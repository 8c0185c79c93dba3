import { EgressError } from './egress-error';

/** The URL itself is unusable (not http/https, carries credentials, unparsable); nothing was sent. */
export class EgressInvalidUrlError extends EgressError {
  override readonly name = 'EgressInvalidUrlError';
  readonly code = 'invalid_url';
}
