import type { SessionRef } from '../repositories/session.repository';
import type { MigratedTestDatabase } from './migrated-test-database';

/** One account (on a plan of its own) in a test database, and sessions of it made to order. */
export interface AccountFixture {
  accountId: string;
  /** Inserts a session row of the account (shard 0) and returns its reference. */
  session(sessionId: string, options?: { state?: string; ownerToken?: number }): Promise<SessionRef>;
  /** Another account on the same plan (plan names are unique), for tests of what stays apart. */
  otherAccount(): Promise<AccountFixture>;
}

export async function createAccountFixture(db: MigratedTestDatabase): Promise<AccountFixture> {
  const [plan] = (await db.dataSource.query(
    `INSERT INTO plans (name, monthly_api_hits, max_sessions) VALUES ('fixture plan', 1000, 5) RETURNING id`,
  )) as [{ id: string }];
  return accountOnPlan(db, plan.id);
}

async function accountOnPlan(db: MigratedTestDatabase, planId: string): Promise<AccountFixture> {
  const [account] = (await db.dataSource.query(
    `INSERT INTO accounts (name, plan_id) VALUES ('fixture account', $1) RETURNING id`,
    [planId],
  )) as [{ id: string }];
  const accountId = account.id;
  return {
    accountId,
    async session(sessionId, { state = 'connected', ownerToken = 1 } = {}) {
      await db.dataSource.query(
        `INSERT INTO sessions (account_id, session_id, shard, state, owner_token) VALUES ($1, $2, 0, $3, $4)`,
        [accountId, sessionId, state, ownerToken],
      );
      return { accountId, sessionId };
    },
    otherAccount: () => accountOnPlan(db, planId),
  };
}
