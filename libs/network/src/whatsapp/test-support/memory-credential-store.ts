import { sessionRefKey, type SessionRef } from '../../session-ref';
import type { CredentialItemChange, CredentialStore } from '../credential-store';

/**
 * The credential store's contract in memory, fencing included: `owner` is the newest token that
 * holds each session (set it to simulate a take-over by another worker).
 */
export class MemoryCredentialStore implements CredentialStore {
  readonly items = new Map<string, Map<string, Buffer>>();
  readonly owners = new Map<string, number>();
  writes = 0;
  clears = 0;
  /** Makes every call fail as an unreachable database would. */
  broken: Error | null = null;

  takeOver(ref: SessionRef, token: number): void {
    this.owners.set(sessionRefKey(ref), token);
  }

  count(ref: SessionRef): number {
    return this.items.get(sessionRefKey(ref))?.size ?? 0;
  }

  has(ref: SessionRef, kind: string, keyId: string): boolean {
    return this.items.get(sessionRefKey(ref))?.has(`${kind}\u0000${keyId}`) ?? false;
  }

  async read(ref: SessionRef, kind: string, keyIds: string[]): Promise<Map<string, Buffer>> {
    if (this.broken) throw this.broken;
    const session = this.items.get(sessionRefKey(ref));
    const found = new Map<string, Buffer>();
    for (const keyId of keyIds) {
      const value = session?.get(`${kind}\u0000${keyId}`);
      if (value) found.set(keyId, value);
    }
    return found;
  }

  async write(ref: SessionRef, token: number, changes: CredentialItemChange[]): Promise<'saved' | 'fenced'> {
    if (this.broken) throw this.broken;
    if (this.fenced(ref, token)) return 'fenced';
    this.writes += 1;
    const key = sessionRefKey(ref);
    const session = this.items.get(key) ?? new Map<string, Buffer>();
    this.items.set(key, session);
    for (const change of changes) {
      const itemKey = `${change.kind}\u0000${change.keyId}`;
      if (change.value === null) session.delete(itemKey);
      else session.set(itemKey, change.value);
    }
    return 'saved';
  }

  async clear(ref: SessionRef, token: number): Promise<'saved' | 'fenced'> {
    if (this.broken) throw this.broken;
    if (this.fenced(ref, token)) return 'fenced';
    this.clears += 1;
    this.items.delete(sessionRefKey(ref));
    return 'saved';
  }

  private fenced(ref: SessionRef, token: number): boolean {
    return (this.owners.get(sessionRefKey(ref)) ?? 0) > token;
  }
}
