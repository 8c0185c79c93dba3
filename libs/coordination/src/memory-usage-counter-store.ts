import type { UsageCounters } from '@jumbe/domain';
import {
  assertValidCounters,
  assertValidCounterUpdate,
  assertValidHitLimit,
  USAGE_COUNTERS_TTL_MS,
  type UsageCounterField,
  type UsageCounterStore,
  type UsageHitResult,
} from './usage-counter-store';

interface StoredCycle {
  counters: UsageCounters;
  expiresAt: number;
}

/**
 * The all-in-one twin of RedisUsageCounterStore. Node runs each method body without interleaving,
 * which gives the same atomicity as the Lua scripts; expiry mirrors the Redis TTL so a cycle's
 * counters vanish (and must be re-seeded) at the same moment in both modes.
 */
export class MemoryUsageCounterStore implements UsageCounterStore {
  private readonly cycles = new Map<string, StoredCycle>();

  constructor(private readonly now: () => number = Date.now) {}

  async tryHit(accountId: string, cycleId: string, limit: number): Promise<UsageHitResult | null> {
    assertValidHitLimit(limit);
    const stored = this.live(accountId, cycleId);
    if (!stored) return null;
    const allowed = stored.counters.apiHits < limit;
    if (allowed) stored.counters.apiHits += 1;
    return { allowed, counters: { ...stored.counters } };
  }

  async add(
    accountId: string,
    cycleId: string,
    field: UsageCounterField,
    amount: number,
  ): Promise<UsageCounters | null> {
    assertValidCounterUpdate(field, amount);
    const stored = this.live(accountId, cycleId);
    if (!stored) return null;
    stored.counters[field] += amount;
    return { ...stored.counters };
  }

  async seed(accountId: string, cycleId: string, counters: UsageCounters): Promise<void> {
    assertValidCounters(counters);
    if (this.live(accountId, cycleId)) return;
    this.cycles.set(cycleKey(accountId, cycleId), {
      counters: {
        apiHits: counters.apiHits,
        messagesSent: counters.messagesSent,
        sendFailures: counters.sendFailures,
      },
      expiresAt: this.now() + USAGE_COUNTERS_TTL_MS,
    });
  }

  async read(accountId: string, cycleId: string): Promise<UsageCounters | null> {
    const stored = this.live(accountId, cycleId);
    return stored ? { ...stored.counters } : null;
  }

  /** The stored cycle unless it has expired (then it is dropped, as Redis would). */
  private live(accountId: string, cycleId: string): StoredCycle | undefined {
    const key = cycleKey(accountId, cycleId);
    const stored = this.cycles.get(key);
    if (stored && stored.expiresAt <= this.now()) {
      this.cycles.delete(key);
      return undefined;
    }
    return stored;
  }
}

function cycleKey(accountId: string, cycleId: string): string {
  return `${accountId}\u0000${cycleId}`;
}
