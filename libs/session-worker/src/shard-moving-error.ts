import { ApiError } from '@jumbe/contracts';

/**
 * This worker does not (or no longer) own the session's shard, so the command was not carried out
 * here: the gateway may send it again to the next owner.
 */
export class ShardMovingError extends ApiError {
  constructor() {
    super('unavailable', 'The session is moving to another worker. Retry in a moment.', undefined, {
      'Retry-After': '1',
    });
  }
}
