import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';
import { PruneSchedule } from './prune-schedule';
import type { SessionRef } from './session.repository';
import { findFreshMessage, pruneSessionRowsSql } from './session-bounded-table';

/** How long a sent message can be asked for again (WhatsApp's retry requests come within hours). */
export const SENT_MESSAGE_TTL_MS = 24 * 60 * 60 * 1000;
/** Most messages kept per session; the oldest go first. */
export const SENT_MESSAGES_PER_SESSION = 1_000;

/**
 * The `sent_messages` table: what a session sent, as opaque (encrypted) bytes, for a day and at
 * most SENT_MESSAGES_PER_SESSION per session. Not fenced: every row is a message that really went
 * out, whichever worker sent it.
 */
export class SentMessageRepository {
  private readonly pruneSchedule = new PruneSchedule();

  constructor(
    private readonly dataSource: DataSource,
    private readonly limits = { ttlMs: SENT_MESSAGE_TTL_MS, perSession: SENT_MESSAGES_PER_SESSION },
  ) {}

  /** `chat`: where it went (`key.remoteJid`), so only a reply in that chat can quote it. */
  async save(ref: SessionRef, messageId: string, value: Buffer, chat?: string): Promise<void> {
    if (!isUuid(ref.accountId)) return;
    await this.dataSource.query(
      `INSERT INTO sent_messages (account_id, session_id, message_id, value, chat) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (account_id, session_id, message_id)
        DO UPDATE SET value = EXCLUDED.value, chat = COALESCE(EXCLUDED.chat, sent_messages.chat)`,
      [ref.accountId, ref.sessionId, messageId, value, chat ?? null],
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

  /** The `columns` of the message if younger than the time to live. */
  private fresh<Row>(ref: SessionRef, messageId: string, columns: string): Promise<Row | undefined> {
    return findFreshMessage<Row>(
      this.dataSource,
      'sent_messages',
      columns,
      ref,
      messageId,
      this.limits.ttlMs,
    );
  }

  /** Deletes the session's expired rows and those beyond the newest `perSession`. */
  async prune(ref: SessionRef): Promise<void> {
    await this.dataSource.query(pruneSessionRowsSql('sent_messages'), [
      ref.accountId,
      ref.sessionId,
      this.limits.ttlMs / 1000,
      this.limits.perSession,
    ]);
  }
}
