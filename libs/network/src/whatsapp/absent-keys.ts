import type { CredentialItemChange, CredentialKey } from './credential-store';

/** Absent ids remembered per session at most; past it the memory starts over (reads ask again). */
export const ABSENT_KEYS_MAX = 500;
/** Stored ids a session's index holds at most; a session with more is not indexed (reads ask). */
export const STORED_IDS_MAX = 2_000;
/**
 * Kinds never indexed: a session stores 812 one-time pre-keys, and the ones asked for (a new
 * contact's first message names one) are there.
 */
export const UNINDEXED_KINDS: readonly string[] = ['pre-key'];

/**
 * Signal key ids a session's store is known not to hold, so asking PostgreSQL about them is left
 * out. Baileys' key cache keeps only found values (makeCacheableSignalKeyStore,
 * Utils/auth-utils.js:44-50): a key it asks for that does not exist (a contact's privacy token,
 * `tctoken`, on every send; a new contact's LID mapping, identity and session) was a read each time.
 *
 * Two kinds of knowledge: the ids stored at load, per kind (every kind but the pre-keys; `index`),
 * so an id not in it is absent; and, for the pre-keys or a session too large to index, ids a
 * read did not find. Both hold while this worker holds the session's fence and has the session
 * open once: nobody else writes its keys (an older owner's writes are refused; the driver closes
 * and flushes a session before opening it again), and every write of ours goes through `writing`.
 */
export class AbsentKeys {
  /** Per kind, every id that is (or may be) stored; null when not known. */
  private index: Map<string, Set<string>> | null = null;
  private indexed = 0;
  private readonly absent = new Map<string, Set<string>>();
  private absentCount = 0;
  /** Counts writes started: a read that overlapped one proves nothing absent. */
  private writes = 0;

  constructor(private readonly limits = { absent: ABSENT_KEYS_MAX, stored: STORED_IDS_MAX }) {}

  /** The ids of every stored item but the unindexed kinds' (as read at load, none in flight). */
  stored(keys: CredentialKey[]): void {
    if (keys.length > this.limits.stored) return;
    this.index = new Map();
    this.indexed = 0;
    for (const { kind, keyId } of keys) this.mayBeStored(kind, keyId);
  }

  /** Of `ids`, those that may be stored (the store must be asked about them). */
  unknown(kind: string, ids: string[]): string[] {
    if (this.index && !UNINDEXED_KINDS.includes(kind)) {
      const stored = this.index.get(kind);
      return stored ? ids.filter((id) => stored.has(id)) : [];
    }
    const absent = this.absent.get(kind);
    return absent ? ids.filter((id) => !absent.has(id)) : ids;
  }

  /** Taken before a read, handed back to `notFound`. */
  readStarts(): number {
    return this.writes;
  }

  /** A read that started at `since` did not find `ids`: absent, unless a write started meanwhile. */
  notFound(kind: string, ids: string[], since: number): void {
    if (since !== this.writes) return;
    if (this.index && !UNINDEXED_KINDS.includes(kind)) {
      const stored = this.index.get(kind);
      for (const id of ids) if (stored?.delete(id)) this.indexed -= 1;
    } else for (const id of ids) this.addAbsent(kind, id);
  }

  /** These items are being written: each may be stored from now on (the write may land or not). */
  writing(changes: CredentialKey[]): void {
    this.writes += 1;
    for (const { kind, keyId } of changes) {
      if (this.absent.get(kind)?.delete(keyId)) this.absentCount -= 1;
      if (this.index && !UNINDEXED_KINDS.includes(kind)) this.mayBeStored(kind, keyId);
    }
  }

  /** The write landed: its deletions are absent now. */
  landed(changes: CredentialItemChange[]): void {
    for (const { kind, keyId, value } of changes) {
      if (value !== null) continue;
      if (this.index && !UNINDEXED_KINDS.includes(kind)) {
        if (this.index.get(kind)?.delete(keyId)) this.indexed -= 1;
      } else this.addAbsent(kind, keyId);
    }
  }

  /**
   * The store was cleared. `alone`: no write was running or started while it was, so nothing is
   * stored now; otherwise a write may have landed after the delete and nothing is known.
   */
  cleared(alone: boolean): void {
    this.writes += 1;
    this.absent.clear();
    this.absentCount = 0;
    this.index = alone ? new Map() : null;
    this.indexed = 0;
  }

  private mayBeStored(kind: string, keyId: string): void {
    if (!this.index) return;
    let ids = this.index.get(kind);
    if (!ids) this.index.set(kind, (ids = new Set()));
    if (ids.has(keyId)) return;
    ids.add(keyId);
    this.indexed += 1;
    // Too many to keep in memory: from now on reads ask (absent ones are remembered, bounded).
    if (this.indexed > this.limits.stored) this.index = null;
  }

  private addAbsent(kind: string, id: string): void {
    if (this.absentCount >= this.limits.absent) {
      this.absent.clear();
      this.absentCount = 0;
    }
    let ids = this.absent.get(kind);
    if (!ids) this.absent.set(kind, (ids = new Set()));
    if (!ids.has(id)) {
      ids.add(id);
      this.absentCount += 1;
    }
  }
}
