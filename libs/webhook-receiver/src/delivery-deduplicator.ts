export interface DeliveryDeduplicatorOptions {
  /** At most this many delivery ids are remembered; the least recently seen go first. Default 10,000. */
  maxEntries?: number;
  /** An id is forgotten this long after it was last seen. Default 86,400 (24 hours). */
  maxAgeSeconds?: number;
  /** Clock in milliseconds (for tests). Default `Date.now`. */
  now?: () => number;
}

/**
 * Remembers recent delivery ids in memory so a delivery that arrives twice is handled once
 * (spec: "de-duplicate on the delivery header"). Bounded by count and by age. One process only:
 * a receiver running several replicas needs a shared store (for example a Redis `SET NX EX`).
 */
export class DeliveryDeduplicator {
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  /** id → last seen (ms). Kept in last-seen order, oldest first. */
  private readonly entries = new Map<string, number>();

  constructor(options: DeliveryDeduplicatorOptions = {}) {
    const { maxEntries = 10_000, maxAgeSeconds = 86_400, now = Date.now } = options;
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new TypeError('maxEntries must be an integer >= 1');
    if (typeof maxAgeSeconds !== 'number' || Number.isNaN(maxAgeSeconds) || maxAgeSeconds <= 0) {
      throw new TypeError('maxAgeSeconds must be a number > 0');
    }
    this.maxEntries = maxEntries;
    this.maxAgeMs = maxAgeSeconds * 1000;
    this.now = now;
  }

  /**
   * `true` when `deliveryId` was already seen (a duplicate: skip it); otherwise remembers it and
   * returns `false` (first time: handle it). If handling then fails, call `forget(deliveryId)` so
   * that a later delivery with the same id is handled.
   */
  seen(deliveryId: string): boolean {
    const now = this.now();
    this.prune(now);
    const duplicate = this.entries.has(deliveryId);
    this.entries.delete(deliveryId);
    this.entries.set(deliveryId, now);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    return duplicate;
  }

  /** Whether `deliveryId` is remembered, without recording it. */
  has(deliveryId: string): boolean {
    this.prune(this.now());
    return this.entries.has(deliveryId);
  }

  /** Forgets `deliveryId`; returns whether it was remembered. */
  forget(deliveryId: string): boolean {
    return this.entries.delete(deliveryId);
  }

  clear(): void {
    this.entries.clear();
  }

  /** How many ids are remembered (expired ones may still count until the next call). */
  get size(): number {
    return this.entries.size;
  }

  private prune(now: number): void {
    for (const [id, lastSeen] of this.entries) {
      if (now - lastSeen < this.maxAgeMs) break;
      this.entries.delete(id);
    }
  }
}
