import type { SessionRecord } from '@jumbe/domain';

/** The stored sessions of an account, as the API lists and counts them. */
export abstract class SessionCatalogue {
  /** Every session of the account, by session id. */
  abstract list(accountId: string): Promise<SessionRecord[]>;
  /** At most `limit` sessions of the account whose id comes after `after` (all when null), by session id. */
  abstract listPage(accountId: string, after: string | null, limit: number): Promise<SessionRecord[]>;
  /** Sessions that count against the plan's session cap. */
  abstract countActive(accountId: string): Promise<number>;
}
