import type { IdempotencyClaim } from '@jumbe/domain';

/** Idempotency-Key records shared by every gateway (CONTRACT §5). */
export abstract class IdempotencyStore {
  /** The first request with a key claims it; later ones learn what to replay or refuse. */
  abstract claim(accountId: string, key: string, requestHash: string): Promise<IdempotencyClaim>;
  abstract complete(accountId: string, key: string, statusCode: number, response: unknown): Promise<void>;
  /** Forgets a claim whose request failed, so the client may try again with the same key. */
  abstract release(accountId: string, key: string): Promise<void>;
  /**
   * Keeps a claim whose try timed out (504: it may have been sent) as of unknown outcome: the next
   * claim with the same request gets the key back (`afterUnknownOutcome`), another request a conflict.
   */
  abstract releaseUnknown(accountId: string, key: string): Promise<void>;
}
