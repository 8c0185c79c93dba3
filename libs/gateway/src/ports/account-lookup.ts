import type { Account, Plan } from '@jumbe/domain';

/** Where an authenticated key's account and its plan are read. */
export abstract class AccountLookup {
  abstract findWithPlan(accountId: string): Promise<{ account: Account; plan: Plan } | null>;
}
