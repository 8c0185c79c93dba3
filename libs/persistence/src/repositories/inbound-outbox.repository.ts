import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';
import type { SessionRef } from './session.repository';

/** One message waiting in a session's outbox: opaque (sealed) bytes, in arrival order. */
export interface OutboxEntry {
  messageId: string;
  value: Buffer;
}

/**
 * The `inbound_outbox` table: received messages not yet on the event stream, per session, in the
 * order they arrived. A message id is kept once (WhatsApp may deliver a message again).
 */
export class InboundOutboxRepository {
  constructor(private readonly dataSource: DataSource) {}

  async add(ref: SessionRef, messageId: string, value: Buffer): Promise<void> {
    if (!isUuid(ref.accountId)) return;
    await this.dataSource.query(
      `INSERT INTO inbound_outbox (account_id, session_id, message_id, value) VALUES ($1, $2, $3, $4)
        ON CONFLICT (account_id, session_id, message_id) DO NOTHING`,
      [ref.accountId, ref.sessionId, messageId, value],
    );
  }

  /** The oldest `limit` waiting messages of the session. */
  async oldest(ref: SessionRef, limit: number): Promise<OutboxEntry[]> {
    if (!isUuid(ref.accountId)) return [];
    const rows = (await this.dataSource.query(
      `SELECT message_id, value FROM inbound_outbox WHERE account_id = $1 AND session_id = $2
        ORDER BY seq LIMIT $3`,
      [ref.accountId, ref.sessionId, limit],
    )) as { message_id: string; value: Buffer }[];
    return rows.map((row) => ({ messageId: row.message_id, value: row.value }));
  }

  async remove(ref: SessionRef, messageId: string): Promise<void> {
    if (!isUuid(ref.accountId)) return;
    await this.dataSource.query(
      `DELETE FROM inbound_outbox WHERE account_id = $1 AND session_id = $2 AND message_id = $3`,
      [ref.accountId, ref.sessionId, messageId],
    );
  }
}
