import type { SendFailure, SessionRecord, UsageCounters } from '@jumbe/domain';

/** What an operator's report on one account reads: its usage, its sessions and its failed sends. */
export interface AccountActivity {
  usage: {
    /** The cycle's counters as last saved; zeros when nothing was recorded yet. */
    load(accountId: string, periodStart: string): Promise<UsageCounters>;
  };
  sessions: { list(accountId: string): Promise<SessionRecord[]> };
  failures: {
    /** Newest first. */
    list(accountId: string, options: { limit: number }): Promise<SendFailure[]>;
  };
}
