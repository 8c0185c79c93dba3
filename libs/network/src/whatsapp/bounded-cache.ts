import { LRUCache } from 'lru-cache';

/**
 * Baileys' CacheStore (get/set/del/flushAll, plus the optional batch calls) over a size-limited
 * LRU. Baileys' defaults are TTL-only caches that grow without bound in a long-running process;
 * every cache the driver hands to Baileys is one of these instead.
 */
export class BoundedCache {
  // lru-cache refuses null/undefined values, and Baileys caches `null` (a deleted key): box them.
  private readonly entries: LRUCache<string, { value: unknown }>;
  private readonly passThrough: (key: string) => boolean;

  /** `passThrough`: keys never kept (a `set` of one only drops what was kept under it). */
  constructor(options: { max: number; ttlMs?: number; passThrough?: (key: string) => boolean }) {
    this.entries = new LRUCache({ max: options.max, ...(options.ttlMs ? { ttl: options.ttlMs } : {}) });
    this.passThrough = options.passThrough ?? (() => false);
  }

  get size(): number {
    return this.entries.size;
  }

  get<T>(key: string): T | undefined {
    return this.entries.get(key)?.value as T | undefined;
  }

  set<T>(key: string, value: T): void {
    if (this.passThrough(key)) this.entries.delete(key);
    else this.entries.set(key, { value });
  }

  del(key: string): void {
    this.entries.delete(key);
  }

  flushAll(): void {
    this.entries.clear();
  }

  async mget<T>(keys: string[]): Promise<Record<string, T | undefined>> {
    return Object.fromEntries(keys.map((key) => [key, this.get<T>(key)]));
  }

  async mset<T>(entries: { key: string; value: T }[]): Promise<void> {
    for (const { key, value } of entries) this.set(key, value);
  }

  async mdel(keys: string[]): Promise<void> {
    for (const key of keys) this.del(key);
  }
}
