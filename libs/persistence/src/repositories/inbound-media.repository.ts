import type { DataSource } from 'typeorm';
import { isUuid } from '../is-uuid';
import { PruneSchedule } from './prune-schedule';
import type { SessionRef } from './session.repository';
import { pruneSessionRowsSql } from './session-bounded-table';

/** How long a received media file can be asked for (the "at least 7 days"). */
export const INBOUND_MEDIA_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Most media messages kept per session; the oldest go first. */
export const INBOUND_MEDIA_PER_SESSION = 10_000;

/** A stored descriptor, or the fact that it is past its time to live. */
export type StoredInboundMedia = { expired: false; value: Buffer } | { expired: true };

/**
 * The `inbound_media` table: how to download each media message a session received, as opaque
 * (sealed) bytes, for 7 days and at most INBOUND_MEDIA_PER_SESSION per session. Separate from any
 * archive of received messages: a file's retention is its own.
 */
export class InboundMediaRepository {
  private readonly pruneSchedule = new PruneSchedule();

  constructor(
    private readonly dataSource: DataSource,
    private readonly limits = { ttlMs: INBOUND_MEDIA_TTL_MS, perSession: INBOUND_MEDIA_PER_SESSION },
  ) {}

  async save(ref: SessionRef, messageId: string, value: Buffer): Promise<void> {
    if (!isUuid(ref.accountId)) return;
    // A message delivered twice keeps its first arrival time: retention counts from it.
    await this.dataSource.query(
      `INSERT INTO inbound_media (account_id, session_id, message_id, value) VALUES ($1, $2, $3, $4)
        ON CONFLICT (account_id, session_id, message_id) DO NOTHING`,
      [ref.accountId, ref.sessionId, messageId, value],
    );
    if (this.pruneSchedule.due(ref)) await this.prune(ref);
  }

  /** The stored descriptor; `expired` once past the time to live; null when unknown. */
  async find(ref: SessionRef, messageId: string): Promise<StoredInboundMedia | null> {
    if (!isUuid(ref.accountId)) return null;
    const [row] = (await this.dataSource.query(
      `SELECT value, created_at <= now() - make_interval(secs => $4) AS expired FROM inbound_media
        WHERE account_id = $1 AND session_id = $2 AND message_id = $3`,
      [ref.accountId, ref.sessionId, messageId, this.limits.ttlMs / 1000],
    )) as { value: Buffer; expired: boolean }[];
    if (!row) return null;
    return row.expired ? { expired: true } : { expired: false, value: row.value };
  }

  /**
   * Deletes the session's rows beyond the newest `perSession`, and expired rows once they are
   * twice the time to live old: until then a late request hears that the file expired (410)
   * rather than that it never existed (404).
   */
  async prune(ref: SessionRef): Promise<void> {
    await this.dataSource.query(pruneSessionRowsSql('inbound_media'), [
      ref.accountId,
      ref.sessionId,
      (2 * this.limits.ttlMs) / 1000,
      this.limits.perSession,
    ]);
  }
}
