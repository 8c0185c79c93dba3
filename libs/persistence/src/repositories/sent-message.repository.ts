import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';
import { PruneSchedule } from './prune-schedule';
import type { SessionRef } from './session.repository';

/** How long a sent message can be asked for again (WhatsApp's retry requests come within hours). */
export const SENT_MESSAGE_TTL_MS = 24 * 60 * 60 * 1000;

/** A row still kept: younger than $4 seconds, or kept on until a later time (a poll). */
const STILL_KEPT = `(created_at > now() - make_interval(secs => $4) OR keep_until > now())`;

/** Deletes a session's sent messages at least $3 seconds old and not kept on ($1 account, $2 session). */
const PRUNE_EXPIRED_SQL = `DELETE FROM sent_messages
        WHERE account_id = $1 AND session_id = $2 AND created_at <= now() - make_interval(secs => $3)
          AND (keep_until IS NULL OR keep_until <= now())`;

/**
 * The `sent_messages` table: what a session sent, as opaque (encrypted) bytes, for a day however
 * many that is. A recipient's retry request may come hours later, and a number that sends more
 * than any count we could pick must still answer it (issue 28: a bound of the newest 1,000 left
 * busy numbers' recipients on "waiting for this message"). Bounded by time alone: the session's
 * expired rows go on every 50th save, and the retention sweep deletes those of idle sessions.
 * Not fenced: every row is a message that really went out, whichever worker sent it.
 */
export class SentMessageRepository {
  private readonly pruneSchedule = new PruneSchedule();

  constructor(
    private readonly dataSource: DataSource,
    private readonly limits = { ttlMs: SENT_MESSAGE_TTL_MS },
  ) {}

  /**
   * `chat`: where it went (`key.remoteJid`), so only a reply in that chat can quote it;
   * `keepUntil`: kept until then if later than the day (a poll, whose votes need it).
   */
  async save(
    ref: SessionRef,
    messageId: string,
    value: Buffer,
    chat?: string,
    keepUntil?: Date,
  ): Promise<void> {
    if (!isUuid(ref.accountId)) return;
    await this.dataSource.query(
      `INSERT INTO sent_messages (account_id, session_id, message_id, value, chat, keep_until)
        VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (account_id, session_id, message_id)
        DO UPDATE SET value = EXCLUDED.value, chat = COALESCE(EXCLUDED.chat, sent_messages.chat),
          keep_until = GREATEST(EXCLUDED.keep_until, sent_messages.keep_until)`,
      [ref.accountId, ref.sessionId, messageId, value, chat ?? null, keepUntil ?? null],
    );
    if (this.pruneSchedule.due(ref)) await this.prune(ref);
  }

  /** The stored message, or null when unknown or older than the time to live. */
  async find(ref: SessionRef, messageId: string): Promise<Buffer | null> {
    if (!isUuid(ref.accountId)) return null;
    const row = await this.fresh<{ value: Buffer }>(ref, messageId, 'value');
    return row?.value ?? null;
  }

  /** The stored message with its chat (null for rows older than the chat column), for a quote. */
  async findWithChat(
    ref: SessionRef,
    messageId: string,
  ): Promise<{ value: Buffer; chat: string | null } | null> {
    if (!isUuid(ref.accountId)) return null;
    const row = await this.fresh<{ value: Buffer; chat: string | null }>(ref, messageId, 'value, chat');
    return row ? { value: row.value, chat: row.chat } : null;
  }

  /** When the message was stored (sent), or null when unknown or older than the time to live. */
  async sentAt(ref: SessionRef, messageId: string): Promise<Date | null> {
    if (!isUuid(ref.accountId)) return null;
    const row = await this.fresh<{ created_at: Date }>(ref, messageId, 'created_at');
    return row?.created_at ?? null;
  }

  /** The `columns` of the message if younger than the time to live or kept on. */
  private async fresh<Row>(ref: SessionRef, messageId: string, columns: string): Promise<Row | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT ${columns} FROM sent_messages
        WHERE account_id = $1 AND session_id = $2 AND message_id = $3 AND ${STILL_KEPT}`,
      [ref.accountId, ref.sessionId, messageId, this.limits.ttlMs / 1000],
    )) as Row[];
    return row;
  }

  /** Deletes the session's expired rows (only those: the window is the bound). */
  async prune(ref: SessionRef): Promise<void> {
    await this.dataSource.query(PRUNE_EXPIRED_SQL, [ref.accountId, ref.sessionId, this.limits.ttlMs / 1000]);
  }
}
