import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';
import { PruneSchedule } from './prune-schedule';
import type { SessionRef } from './session.repository';
import { findFreshMessage } from './session-bounded-table';

/**
 * How long a received message can be quoted: a week, as long as its media stays retrievable,
 * long enough for a support conversation that resumes days later.
 */
export const RECEIVED_MESSAGE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Most received messages kept per session; the oldest go first (a few MB for a busy number). */
export const RECEIVED_MESSAGES_PER_SESSION = 5_000;

/**
 * The insert of a received message, for a statement that writes it together with the inbound
 * outbox ($1 account, $2 session, $3 message id, `value` the sealed bytes' parameter). WhatsApp
 * may deliver a message twice: the first copy stays.
 */
export const insertReceivedMessageSql = (value: string): string =>
  `INSERT INTO received_messages (account_id, session_id, message_id, value) VALUES ($1, $2, $3, ${value})
     ON CONFLICT (account_id, session_id, message_id) DO NOTHING`;

/**
 * The `received_messages` table: what a reply needs to quote a message the session received, as
 * opaque (sealed) bytes, for RECEIVED_MESSAGE_TTL_MS and at most RECEIVED_MESSAGES_PER_SESSION per
 * session. Written by InboundOutboxRepository.add in the same statement as the outbox row.
 */
export class ReceivedMessageRepository {
  private readonly pruneSchedule = new PruneSchedule();

  constructor(
    private readonly dataSource: DataSource,
    private readonly limits = { ttlMs: RECEIVED_MESSAGE_TTL_MS, perSession: RECEIVED_MESSAGES_PER_SESSION },
  ) {}

  async save(ref: SessionRef, messageId: string, value: Buffer): Promise<void> {
    if (!isUuid(ref.accountId)) return;
    await this.dataSource.query(insertReceivedMessageSql('$4'), [
      ref.accountId,
      ref.sessionId,
      messageId,
      value,
    ]);
    await this.saved(ref);
  }

  /** The stored message, or null when unknown or older than the time to live. */
  async find(ref: SessionRef, messageId: string): Promise<Buffer | null> {
    if (!isUuid(ref.accountId)) return null;
    const row = await findFreshMessage<{ value: Buffer }>(
      this.dataSource,
      'received_messages',
      'value',
      ref,
      messageId,
      this.limits.ttlMs,
    );
    return row?.value ?? null;
  }

  /** Counts a save of the session's; every PRUNE_EVERY-th prunes, so the bound costs no query per message. */
  async saved(ref: SessionRef): Promise<void> {
    if (this.pruneSchedule.due(ref)) await this.prune(ref);
  }

  /**
   * Deletes the session's expired rows and those older than its `perSession` newest. Its own
   * statement (not pruneSessionRowsSql): it bounds by age, so rows tied with the newest kept one stay.
   */
  async prune(ref: SessionRef): Promise<void> {
    if (!isUuid(ref.accountId)) return;
    await this.dataSource.query(
      `DELETE FROM received_messages
        WHERE account_id = $1 AND session_id = $2
          AND (created_at <= now() - make_interval(secs => $3)
               OR created_at < (SELECT created_at FROM received_messages
                                 WHERE account_id = $1 AND session_id = $2
                                 ORDER BY created_at DESC OFFSET $4 LIMIT 1))`,
      [ref.accountId, ref.sessionId, this.limits.ttlMs / 1000, this.limits.perSession - 1],
    );
  }
}
