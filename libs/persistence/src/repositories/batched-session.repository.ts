import type { DataSource } from 'typeorm';
import {
  type FencedWriteResult,
  type SessionRef,
  SessionRepository,
  type SessionStatePatch,
} from './session.repository';

interface PendingWrite {
  ref: SessionRef;
  token: number;
  patch: SessionStatePatch;
  resolve(result: FencedWriteResult): void;
  reject(error: unknown): void;
}

/** Most rows in one UPDATE (6 parameters each, well under PostgreSQL's 65,535). */
const MAX_BATCH = 500;

const keyOf = (ref: SessionRef) => `${ref.accountId}/${ref.sessionId}`;

/**
 * A SessionRepository whose state writes are grouped: while one UPDATE is in flight, the writes
 * that arrive queue up and go together in the next, as one statement. A worker restoring thousands
 * of sessions then writes their states in a few round trips instead of one each. Each write keeps
 * its own fence (`owner_token <= token`) and its own answer; a batch that trips the one-session-
 * per-number rule is split until the write at fault is alone, so only it gets `number_in_use`.
 */
export class BatchedSessionRepository extends SessionRepository {
  private queue: PendingWrite[] = [];
  private flushing = false;

  constructor(private readonly db: DataSource) {
    super(db);
  }

  override saveState(ref: SessionRef, token: number, patch: SessionStatePatch): Promise<FencedWriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ref, token, patch, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) await this.writeBatch(this.nextBatch());
    } finally {
      this.flushing = false;
    }
  }

  /** Up to MAX_BATCH queued writes, at most one per session (a later one waits for the next batch). */
  private nextBatch(): PendingWrite[] {
    const batch: PendingWrite[] = [];
    const rest: PendingWrite[] = [];
    const seen = new Set<string>();
    for (const write of this.queue) {
      const key = keyOf(write.ref);
      if (batch.length < MAX_BATCH && !seen.has(key)) {
        seen.add(key);
        batch.push(write);
      } else rest.push(write);
    }
    this.queue = rest;
    return batch;
  }

  private async writeBatch(batch: PendingWrite[]): Promise<void> {
    if (batch.length === 1) return this.writeAlone(batch[0]);
    let saved: Set<string>;
    try {
      saved = await this.updateAll(batch);
    } catch {
      // A number taken (or one bad row) fails the whole statement: halve the batch until the
      // writes at fault are alone and get their own answer, the rest still in few statements.
      const half = Math.ceil(batch.length / 2);
      await this.writeBatch(batch.slice(0, half));
      await this.writeBatch(batch.slice(half));
      return;
    }
    for (const write of batch) write.resolve(saved.has(keyOf(write.ref)) ? 'saved' : 'fenced');
  }

  private async writeAlone(write: PendingWrite): Promise<void> {
    await super.saveState(write.ref, write.token, write.patch).then(write.resolve, write.reject);
  }

  /** One UPDATE for the whole batch; the sessions it wrote (the others were fenced). */
  private async updateAll(batch: PendingWrite[]): Promise<Set<string>> {
    const values: unknown[] = [];
    const rows = batch.map((write, i) => {
      values.push(
        write.ref.accountId,
        write.ref.sessionId,
        write.token,
        write.patch.state,
        write.patch.phoneNumber,
        write.patch.reason,
      );
      const p = i * 6;
      return `($${p + 1}::uuid, $${p + 2}::text, $${p + 3}::bigint, $${p + 4}::text, $${p + 5}::text, $${p + 6}::text)`;
    });
    const written = (await this.db.query(
      `UPDATE sessions AS s
          SET state = v.state, phone_number = v.phone_number, reason = v.reason,
              owner_token = v.token, updated_at = now()
         FROM (VALUES ${rows.join(', ')}) AS v (account_id, session_id, token, state, phone_number, reason)
        WHERE s.account_id = v.account_id AND s.session_id = v.session_id AND s.owner_token <= v.token
        RETURNING s.account_id, s.session_id`,
      values,
    )) as unknown;
    const returned = (Array.isArray(written) && Array.isArray(written[0]) ? written[0] : written) as Array<{
      account_id: string;
      session_id: string;
    }>;
    return new Set(returned.map((row) => `${row.account_id}/${row.session_id}`));
  }
}
