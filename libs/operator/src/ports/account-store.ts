import type { Account, Plan } from '@jumbe/domain';

/** The accounts (tenants) an operator manages (CONTRACT §8). */
export interface AccountStore {
  create(account: { name: string; planId: string }): Promise<Account>;
  list(): Promise<Account[]>;
  /** Null when no account has this id. */
  findWithPlan(id: string): Promise<{ account: Account; plan: Plan } | null>;
  /** Null when no account has this id. */
  update(id: string, changes: { planId?: string; suspended?: boolean }): Promise<Account | null>;
}
