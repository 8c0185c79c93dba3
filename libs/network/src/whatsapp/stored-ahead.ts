/** One signal key item as Baileys hands it to the store: `value` null deletes it. */
export interface KeyItem {
  kind: string;
  keyId: string;
  value: unknown;
}

/** Items remembered at most; past it the memory starts over (their commit writes them again). */
const STORED_AHEAD_MAX = 1_000;

/**
 * Key items an encryption stored ahead of its Baileys transaction (durable-encryptions.ts), by
 * the very value object stored. The transaction commits the same objects once the stanza is out
 * (Utils/auth-utils.js:250-252); writing them again was a second fenced round trip per send for
 * nothing. An item leaves the memory at the next write of its key, whatever that writes: a later
 * different value is written, and an older object is never skipped over a newer stored one.
 */
export class StoredAhead {
  private readonly values = new Map<string, unknown>();

  /** Of `items`, those still to be written; forgets each key's stored-ahead value either way. */
  unwritten(items: KeyItem[]): KeyItem[] {
    if (this.values.size === 0) return items;
    return items.filter((item) => {
      const key = keyOf(item);
      const stored = this.values.has(key) && this.values.get(key) === item.value && item.value !== null;
      this.values.delete(key);
      return !stored;
    });
  }

  /** These items landed under the session's fence, ahead of their transaction's commit. */
  landed(items: KeyItem[]): void {
    if (this.values.size + items.length > STORED_AHEAD_MAX) this.values.clear();
    for (const item of items) this.values.set(keyOf(item), item.value);
  }

  forgetAll(): void {
    this.values.clear();
  }
}

function keyOf({ kind, keyId }: KeyItem): string {
  return `${kind}.${keyId}`;
}
