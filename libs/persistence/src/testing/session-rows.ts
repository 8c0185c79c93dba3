import type { SessionRef } from '../repositories/session.repository';
import type { MigratedTestDatabase } from './migrated-test-database';

/** How many rows of `table` (keyed by account and session) the session has, for tests of pruning. */
export async function sessionRowCount(
  db: MigratedTestDatabase,
  table: string,
  ref: SessionRef,
): Promise<number> {
  const [row] = (await db.dataSource.query(
    `SELECT count(*)::int AS count FROM ${table} WHERE account_id = $1 AND session_id = $2`,
    [ref.accountId, ref.sessionId],
  )) as [{ count: number }];
  return row.count;
}
