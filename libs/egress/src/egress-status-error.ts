import { EgressError } from './egress-error';

/** A download answered with something other than 2xx (a 3xx too: redirects are never followed). */
export class EgressStatusError extends EgressError {
  override readonly name = 'EgressStatusError';
  readonly code = 'bad_status';

  constructor(readonly status: number) {
    super(
      status >= 300 && status < 400
        ? `answered HTTP ${status} (redirects are not followed)`
        : `answered HTTP ${status}`,
    );
  }
}
