import { EgressError } from './egress-error';

/**
 * The exchange broke below HTTP: DNS failure, refused or reset connection, TLS failure, a response
 * that is not valid HTTP. `cause` keeps the original Node error for logs.
 */
export class EgressConnectionError extends EgressError {
  override readonly name = 'EgressConnectionError';
  readonly code = 'connection_failed';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
