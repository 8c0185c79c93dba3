import type { UsageCounterStore } from '@jumbe/coordination';
import { type BillingCycle, billingCycleAt, type UsageCounters } from '@jumbe/domain';
import type { UsageRepository } from '@jumbe/persistence';
import type { Logger } from 'pino';
import { orUnavailable, unavailable } from '../auth/dependency-failure';

export interface HitResult {
  allowed: boolean;
  counters: UsageCounters;
  cycle: BillingCycle;
}

type CountedField = 'messagesSent' | 'sendFailures';

/**
 * Usage counters of the current billing cycle. The live counters sit in the coordination store
 * (Redis: one atomic script per hit, so N gateways enforce the cap exactly); PostgreSQL holds the
 * durable copy, written behind about once a second and used to re-seed the store after a Redis
 * restart. Writes are "at least" upserts, so gateways flushing in any order never lower a counter.
 */
export class UsageMeter {
  private readonly dirty = new Map<string, { accountId: string; cycleId: string }>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: UsageCounterStore,
    private readonly usage: Pick<UsageRepository, 'load' | 'saveManyAtLeast'>,
    private readonly logger: Logger,
    private readonly flushEveryMs = 1_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushEveryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  /** Counts one API hit unless the plan's monthly cap is reached. */
  async countHit(accountId: string, limit: number, now = new Date()): Promise<HitResult> {
    const cycle = billingCycleAt(now);
    const result = await this.seeded(accountId, cycle, () => this.store.tryHit(accountId, cycle.id, limit));
    if (result.allowed) this.markDirty(accountId, cycle.id);
    return { ...result, cycle };
  }

  async add(accountId: string, field: CountedField, amount = 1, now = new Date()): Promise<UsageCounters> {
    const cycle = billingCycleAt(now);
    const counters = await this.seeded(accountId, cycle, () =>
      this.store.add(accountId, cycle.id, field, amount),
    );
    this.markDirty(accountId, cycle.id);
    return counters;
  }

  async current(accountId: string, now = new Date()): Promise<UsageCounters> {
    const cycle = billingCycleAt(now);
    return this.seeded(accountId, cycle, () => this.store.read(accountId, cycle.id));
  }

  /** Persists every counter that changed since the last flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    if (this.dirty.size === 0) return;
    const batch = [...this.dirty.values()];
    this.dirty.clear();
    try {
      const rows = [];
      for (const { accountId, cycleId } of batch) {
        const counters = await this.store.read(accountId, cycleId);
        if (counters) rows.push({ accountId, periodStart: cycleId, counters });
      }
      await this.usage.saveManyAtLeast(rows);
    } catch (error) {
      // Keep them dirty: the next flush retries once the database or Redis is back.
      for (const entry of batch) this.dirty.set(`${entry.accountId}|${entry.cycleId}`, entry);
      this.logger.warn({ err: error, pending: batch.length }, 'usage flush failed; will retry');
    }
  }

  private markDirty(accountId: string, cycleId: string): void {
    this.dirty.set(`${accountId}|${cycleId}`, { accountId, cycleId });
  }

  /** Runs `operation`; when the store has no counters for the cycle yet, seeds them from PostgreSQL first. */
  private async seeded<T>(
    accountId: string,
    cycle: BillingCycle,
    operation: () => Promise<T | null>,
  ): Promise<T> {
    const first = await orUnavailable('coordination store', operation);
    if (first !== null) return first;
    const saved = await orUnavailable('database', () => this.usage.load(accountId, cycle.id));
    await orUnavailable('coordination store', () => this.store.seed(accountId, cycle.id, saved));
    const second = await orUnavailable('coordination store', operation);
    if (second === null) throw unavailable('coordination store');
    return second;
  }
}
