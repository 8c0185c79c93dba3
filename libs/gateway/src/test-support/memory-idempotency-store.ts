import type { IdempotencyClaim } from '@jumbe/domain';
import type { IdempotencyStore } from '../ports/idempotency-store';

/** How long a key is remembered: IDEMPOTENCY_WINDOW_HOURS of the PostgreSQL store (CONTRACT §5). */
const WINDOW_MS = 24 * 60 * 60 * 1000;

/** A claimed key whose first request has not finished has no status yet. */
type IdempotencyRecord = {
  requestHash: string;
  createdAt: number;
  done: { statusCode: number; response: unknown } | null;
  /** Its last try timed out (504) and may have been sent. */
  outcomeUnknown?: boolean;
};

/**
 * The idempotency port on memory with the PostgreSQL store's rules (IdempotencyRepository), so
 * in-process tests run the gateway's own request hashing: per account and key, the first claim
 * wins, a later one with another request hash is a conflict, one with the same hash replays the
 * stored answer (or is in flight until it is completed), a released key can be claimed again,
 * and a record older than the window is forgotten. The response is stored as JSON, as there.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord>();

  constructor(private readonly now: () => number = Date.now) {}

  async claim(accountId: string, key: string, requestHash: string): Promise<IdempotencyClaim> {
    const id = recordId(accountId, key);
    const existing = this.records.get(id);
    if (existing === undefined || existing.createdAt < this.now() - WINDOW_MS) {
      this.records.set(id, { requestHash, createdAt: this.now(), done: null });
      return { kind: 'new' };
    }
    if (existing.requestHash !== requestHash) return { kind: 'conflict' };
    if (existing.outcomeUnknown) {
      existing.outcomeUnknown = false;
      return { kind: 'new', afterUnknownOutcome: true };
    }
    if (existing.done === null) return { kind: 'in_flight' };
    return { kind: 'replay', ...existing.done };
  }

  async complete(accountId: string, key: string, statusCode: number, response: unknown): Promise<void> {
    const record = this.records.get(recordId(accountId, key));
    if (record) record.done = { statusCode, response: JSON.parse(JSON.stringify(response)) as unknown };
  }

  async release(accountId: string, key: string): Promise<void> {
    this.records.delete(recordId(accountId, key));
  }

  async releaseUnknown(accountId: string, key: string): Promise<void> {
    const record = this.records.get(recordId(accountId, key));
    if (record && record.done === null) record.outcomeUnknown = true;
  }

  /** The request hash the gateway stored for a key, for tests that check what it hashes. */
  hashOf(accountId: string, key: string): string | undefined {
    return this.records.get(recordId(accountId, key))?.requestHash;
  }
}

function recordId(accountId: string, key: string): string {
  return JSON.stringify([accountId, key]);
}
