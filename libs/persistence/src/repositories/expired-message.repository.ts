import type { DataSource } from 'typeorm';
import { IDEMPOTENCY_WINDOW_HOURS } from './idempotency.repository';
import { INBOUND_MEDIA_TTL_MS } from './inbound-media.repository';
import { RECEIVED_MESSAGE_TTL_MS } from './received-message.repository';
import { SENT_MESSAGE_TTL_MS } from './sent-message.repository';

/** Expired rows deleted from each table of kept message content. */
export interface ExpiredRowsDeleted {
  sentMessages: number;
  receivedMessages: number;
  inboundMedia: number;
  /** Idempotency records past their window (they hold the API's answers). */
  idempotencyRecords: number;
}

/** How old a row of each table is when it goes (milliseconds). */
export type MessageRetention = ExpiredRowsDeleted;

/**
 * How long each table keeps a row: its repository's time to live; a media descriptor twice its
 * own, so a late request hears the file expired (410) rather than never existed (404).
 */
export const MESSAGE_RETENTION: MessageRetention = {
  sentMessages: SENT_MESSAGE_TTL_MS,
  receivedMessages: RECEIVED_MESSAGE_TTL_MS,
  inboundMedia: 2 * INBOUND_MEDIA_TTL_MS,
  idempotencyRecords: IDEMPOTENCY_WINDOW_HOURS * 60 * 60 * 1000,
};

/** Each table and its primary key. */
const TABLES: Record<keyof ExpiredRowsDeleted, { table: string; key: string; keptOn?: string }> = {
  // A sent poll is kept on past the day (keep_until), for its votes.
  sentMessages: {
    table: 'sent_messages',
    key: 'account_id, session_id, message_id',
    keptOn: 'keep_until > now()',
  },
  receivedMessages: { table: 'received_messages', key: 'account_id, session_id, message_id' },
  inboundMedia: { table: 'inbound_media', key: 'account_id, session_id, message_id' },
  idempotencyRecords: { table: 'idempotency_records', key: 'account_id, key' },
};

/**
 * Deletes expired message content (sealed bytes) of every session, idle ones included: each
 * repository prunes a session only when that session writes again. Not scoped by account, on
 * purpose: it deletes only rows past their retention, whoever they belong to, in batches of
 * `limit` per table so no statement holds many row locks or runs long. Batches taken at the same
 * time by another worker skip each other's rows (SKIP LOCKED), so sweeps may overlap harmlessly.
 */
export class ExpiredMessageRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly retention: MessageRetention = MESSAGE_RETENTION,
  ) {}

  /** Deletes at most `limit` expired rows of each table; how many went from each. */
  async deleteExpiredBatch(limit: number): Promise<ExpiredRowsDeleted> {
    const deleted = { sentMessages: 0, receivedMessages: 0, inboundMedia: 0, idempotencyRecords: 0 };
    for (const kind of Object.keys(TABLES) as (keyof ExpiredRowsDeleted)[]) {
      deleted[kind] = await this.deleteBatch(TABLES[kind], this.retention[kind], limit);
    }
    return deleted;
  }

  private async deleteBatch(
    { table, key, keptOn }: { table: string; key: string; keptOn?: string },
    retentionMs: number,
    limit: number,
  ): Promise<number> {
    const expired = `created_at <= now() - make_interval(secs => $1)${keptOn ? ` AND NOT coalesce(${keptOn}, false)` : ''}`;
    // By primary key, the age checked again: a row is deleted only if still expired when locked.
    const [, count] = (await this.dataSource.query(
      `DELETE FROM ${table}
        WHERE (${key}) IN (
                SELECT ${key} FROM ${table}
                 WHERE ${expired}
                 LIMIT $2 FOR UPDATE SKIP LOCKED)
          AND ${expired}`,
      [retentionMs / 1000, limit],
    )) as [unknown[], number];
    return count;
  }
}
