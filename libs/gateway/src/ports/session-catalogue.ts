import type { SessionRecord } from '@jumbe/domain';

/** The stored sessions of an account, as the API lists and counts them. */
export abstract class SessionCatalogue {
  abstract list(accountId: string): Promise<SessionRecord[]>;
  /** Sessions that count against the plan's session cap. */
  abstract countActive(accountId: string): Promise<number>;
}
