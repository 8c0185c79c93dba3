import type { DataSource } from 'typeorm';
import type { SessionRef } from './session.repository';

/**
 * Statements (and the lookup) shared by the per-session bounded, expiring tables (`sent_messages`,
 * `received_messages`, `inbound_media`): each keyed by (account_id, session_id, message_id) with a
 * `created_at`. `table` is always one of those constant names, never input.
 */

/** Selects `columns` of one message if younger than the time to live ($1 account, $2 session, $3 message id, $4 TTL in seconds). */
const selectFreshMessageSql = (table: string, columns: string): string =>
  `SELECT ${columns} FROM ${table}
        WHERE account_id = $1 AND session_id = $2 AND message_id = $3
          AND created_at > now() - make_interval(secs => $4)`;

/**
 * Deletes a session's rows at least $3 seconds old and those beyond its $4 newest (newest by
 * created_at, then message id) ($1 account, $2 session).
 */
export const pruneSessionRowsSql = (table: string): string =>
  `DELETE FROM ${table}
        WHERE account_id = $1 AND session_id = $2
          AND (created_at <= now() - make_interval(secs => $3)
               OR message_id NOT IN (
                 SELECT message_id FROM ${table} WHERE account_id = $1 AND session_id = $2
                  ORDER BY created_at DESC, message_id DESC LIMIT $4))`;

/** The `columns` of one message of the session if younger than `ttlMs`, else undefined. */
export async function findFreshMessage<Row>(
  dataSource: DataSource,
  table: string,
  columns: string,
  ref: SessionRef,
  messageId: string,
  ttlMs: number,
): Promise<Row | undefined> {
  const [row] = (await dataSource.query(selectFreshMessageSql(table, columns), [
    ref.accountId,
    ref.sessionId,
    messageId,
    ttlMs / 1000,
  ])) as Row[];
  return row;
}
