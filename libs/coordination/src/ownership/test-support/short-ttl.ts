import { delay } from '@jumbe/testing';

/**
 * Short TTLs without guessing how long the machine takes. A store starts a TTL when its command
 * runs, somewhere between the moment the call was sent and the moment it answered (the store and
 * the test read the same clock). So a step that answered before `sentAt + ttl` certainly ran while
 * the grant lived, and after `answeredAt + ttl` the grant has certainly run out. A test whose
 * "still alive" steps took longer than the TTL proves nothing, so `withShortTtl` starts it over
 * with a TTL 4 times as long (100 ms, then 400 ms, … up to 6.4 s on a very busy machine); the test
 * must make its stores afresh each time.
 */
export class TooSlowForTtl extends Error {}

export const SHORTEST_TTL_MS = 100;
const LONGEST_TTL_MS = 6_400;

/** A call that starts a TTL (an acquire, a heartbeat) and when it was sent and answered. */
export interface Grant<T> {
  value: T;
  sentAt: number;
  answeredAt: number;
}

export async function granted<T>(call: () => Promise<T>): Promise<Grant<T>> {
  const sentAt = Date.now();
  const value = await call();
  return { value, sentAt, answeredAt: Date.now() };
}

export async function withShortTtl(test: (ttlMs: number) => Promise<void>): Promise<void> {
  for (let ttlMs = SHORTEST_TTL_MS; ; ttlMs *= 4) {
    try {
      return await test(ttlMs);
    } catch (error) {
      if (!(error instanceof TooSlowForTtl) || ttlMs >= LONGEST_TTL_MS) throw error;
    }
  }
}

/** Every step up to now answered while the grant still lived; throws TooSlowForTtl otherwise. */
export function stillLive(grant: Grant<unknown>, ttlMs: number): void {
  if (Date.now() >= grant.sentAt + ttlMs) throw new TooSlowForTtl();
}

/** Waits until the grant has certainly run out (unless it was renewed). */
export async function pastExpiry(grant: Grant<unknown>, ttlMs: number): Promise<void> {
  const wait = grant.answeredAt + ttlMs + 2 - Date.now();
  if (wait > 0) await delay(wait);
}
