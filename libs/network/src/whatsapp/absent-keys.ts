import type { CredentialItemChange } from './credential-store';

/** Absent ids remembered per session at most; past it the memory starts over (reads ask again). */
export const ABSENT_KEYS_MAX = 500;

/**
 * Signal key ids a session's store is known not to hold. Baileys' key cache keeps only found
 * values (makeCacheableSignalKeyStore, Utils/auth-utils.js:44-50), so a key it asks for that does
 * not exist (a contact's privacy token, `tctoken`, on every send to a known contact) was one
 * PostgreSQL read per ask. Knowing it absent is safe while this worker holds the session's fence:
 * nobody else writes the session's keys (an older owner's writes are refused), and every write of
 * ours goes through `writing` first.
 */
export class AbsentKeys {
  private readonly ids = new Map<string, Set<string>>();
  private count = 0;
  /** Counts writes started: a read that overlapped one proves nothing absent. */
  private writes = 0;

  constructor(private readonly max = ABSENT_KEYS_MAX) {}

  /** Of `ids`, those that may be stored (the store must be asked about them). */
  unknown(kind: string, ids: string[]): string[] {
    const absent = this.ids.get(kind);
    return absent ? ids.filter((id) => !absent.has(id)) : ids;
  }

  /** Taken before a read, handed back to `notFound`. */
  readStarts(): number {
    return this.writes;
  }

  /** A read that started at `since` did not find `ids`: absent, unless a write started meanwhile. */
  notFound(kind: string, ids: string[], since: number): void {
    if (since !== this.writes) return;
    for (const id of ids) this.add(kind, id);
  }

  /** These items are being written: none is known absent any more (the write may land or not). */
  writing(changes: Pick<CredentialItemChange, 'kind' | 'keyId'>[]): void {
    this.writes += 1;
    for (const { kind, keyId } of changes) {
      if (this.ids.get(kind)?.delete(keyId)) this.count -= 1;
    }
  }

  /** The write landed: its deletions are absent now. */
  landed(changes: CredentialItemChange[]): void {
    for (const { kind, keyId, value } of changes) if (value === null) this.add(kind, keyId);
  }

  /** Forgets everything (the store was cleared, or a write's outcome is unknown). */
  forgetAll(): void {
    this.writes += 1;
    this.ids.clear();
    this.count = 0;
  }

  private add(kind: string, id: string): void {
    if (this.count >= this.max) this.forgetAll();
    let absent = this.ids.get(kind);
    if (!absent) this.ids.set(kind, (absent = new Set()));
    if (!absent.has(id)) {
      absent.add(id);
      this.count += 1;
    }
  }
}
