import {
  sessionRefKey,
  type CredentialItemChange,
  type CredentialStore,
  type SessionRef,
} from '@jumbe/network';

/** Credentials in memory for in-process tests (the product keeps them in PostgreSQL). */
export class MemoryCredentials implements CredentialStore {
  private readonly items = new Map<string, Buffer>();

  async read(ref: SessionRef, kind: string, keyIds: string[]): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    for (const id of keyIds) {
      const value = this.items.get(`${sessionRefKey(ref)}/${kind}/${id}`);
      if (value) found.set(id, value);
    }
    return found;
  }

  async write(ref: SessionRef, _token: number, changes: CredentialItemChange[]): Promise<'saved'> {
    for (const change of changes) {
      const key = `${sessionRefKey(ref)}/${change.kind}/${change.keyId}`;
      if (change.value === null) this.items.delete(key);
      else this.items.set(key, change.value);
    }
    return 'saved';
  }

  async clear(ref: SessionRef): Promise<'saved'> {
    for (const key of [...this.items.keys()])
      if (key.startsWith(`${sessionRefKey(ref)}/`)) this.items.delete(key);
    return 'saved';
  }

  /** How many items a session has stored (0 once its credentials are gone). */
  count(ref: SessionRef): number {
    return [...this.items.keys()].filter((key) => key.startsWith(`${sessionRefKey(ref)}/`)).length;
  }
}
