import { ApiError } from '@jumbe/contracts';
import type { UsageCounterStore } from '../ports/usage-counter-store';
import { type BillingCycle, billingCycleAt, type DailyHits, type UsageCounters } from '@jumbe/domain';
import type { Logger } from 'pino';
import { orUnavailable, unavailable } from '../http/dependency-failure';
import type { DailyUsageLedger, UsageLedger } from '../ports/usage-ledger';

export interface HitResult {
  allowed: boolean;
  counters: UsageCounters;
  cycle: BillingCycle;
}

type CountedField = 'messagesSent' | 'sendFailures';

interface PendingCounts {
  accountId: string;
  cycleId: string;
  messagesSent: number;
  sendFailures: number;
}

/** One UTC day's API hits, as `GET /usage` returns them. */
export interface DayHits {
  /** `YYYY-MM-DD` (UTC). */
  date: string;
  apiHits: number;
}

/** How long send counts may wait before they reach the shared store. */
const COUNT_BATCH_MS = 200;

/**
 * Usage counters of the current billing cycle. The live counters sit in the coordination store
 * (Redis: one atomic script per hit, so N gateways enforce the cap exactly); PostgreSQL holds the
 * durable copy, written behind about once a second and used to re-seed the store after a Redis
 * restart. Writes are "at least" upserts, so gateways flushing in any order never lower a counter.
 */
export class UsageMeter {
  private readonly dirty = new Map<string, { accountId: string; cycleId: string }>();
  /** Send counts not yet added to the store: batched, since nothing is capped on them. */
  private readonly pending = new Map<string, PendingCounts>();
  private timer: NodeJS.Timeout | null = null;
  private countTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  /**
   * Hits this gateway allowed per account and UTC day, not yet added to `usage_daily`. Written
   * behind with the counters; they feed only the per-day chart, never the cap.
   */
  private dailyPending = new Map<string, DailyHits>();
  /** The cycle of the last call, reused until it ends: every send needed it twice. */
  private cycle: BillingCycle | null = null;
  /** The UTC day of the last counted hit and where it ends, for the same reason. */
  private day: { date: string; endsAt: number } | null = null;

  constructor(
    private readonly store: UsageCounterStore,
    private readonly usage: UsageLedger,
    private readonly logger: Logger,
    private readonly flushEveryMs = 1_000,
    private readonly daily: DailyUsageLedger | null = null,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushEveryMs);
    this.timer.unref();
    this.countTimer = setInterval(() => void this.addPending(), COUNT_BATCH_MS);
    this.countTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.countTimer) clearInterval(this.countTimer);
    this.timer = null;
    this.countTimer = null;
    await this.addPending();
    await this.flush();
  }

  /** Counts one API hit unless the plan's monthly cap is reached. */
  async countHit(accountId: string, limit: number, now = new Date()): Promise<HitResult> {
    const cycle = this.cycleAt(now);
    const result = await this.seeded(accountId, cycle, () => this.store.tryHit(accountId, cycle.id, limit));
    if (result.allowed) {
      this.markDirty(accountId, cycle.id);
      this.countDay(accountId, now);
    }
    return { allowed: result.allowed, counters: result.counters, cycle };
  }

  /**
   * Counts a sent message or a failed send. Batched (added to the store within COUNT_BATCH_MS):
   * these counters cap nothing, so the send path does not wait for a store round trip.
   */
  count(accountId: string, field: CountedField, now = new Date()): void {
    const cycleId = this.cycleAt(now).id;
    const key = `${accountId}|${cycleId}`;
    const entry = this.pending.get(key) ?? { accountId, cycleId, messagesSent: 0, sendFailures: 0 };
    entry[field] += 1;
    this.pending.set(key, entry);
  }

  /** The counters, including this gateway's batched counts (added first). */
  async current(accountId: string, now = new Date()): Promise<UsageCounters> {
    const cycle = billingCycleAt(now);
    await this.addPending(accountId);
    return this.seeded(accountId, cycle, () => this.store.read(accountId, cycle.id));
  }

  /**
   * API hits per UTC day of the current cycle, from its first day through today (days without
   * hits as 0). This gateway's unwritten hits are flushed first, so its own count is exact; other
   * gateways' hits show within their flush interval (about a second).
   */
  async hitsPerDay(accountId: string, now = new Date()): Promise<DayHits[]> {
    const daily = this.daily;
    if (!daily) return [];
    const cycle = billingCycleAt(now);
    await this.flush();
    const today = utcDay(now);
    const tomorrow = utcDay(new Date(Date.parse(`${today}T00:00:00.000Z`) + DAY_MS));
    const stored = await orUnavailable('database', () => daily.hitsBetween(accountId, cycle.id, tomorrow));
    const days: DayHits[] = [];
    for (let t = cycle.start.getTime(); utcDay(new Date(t)) <= today; t += DAY_MS) {
      const date = utcDay(new Date(t));
      days.push({ date, apiHits: stored.get(date) ?? 0 });
    }
    return days;
  }

  private countDay(accountId: string, now: Date): void {
    if (!this.daily) return;
    const day = this.utcDayOf(now);
    const key = `${accountId}|${day}`;
    const entry = this.dailyPending.get(key);
    if (entry) entry.apiHits += 1;
    else this.dailyPending.set(key, { accountId, day, apiHits: 1 });
  }

  /** Adds the batched counts to the store (only one account's when `accountId` is given). */
  private async addPending(accountId?: string): Promise<void> {
    // Read each entry as it is reached: another call may have added (and removed) it meanwhile.
    for (const key of [...this.pending.keys()]) {
      const entry = this.pending.get(key);
      if (!entry || (accountId !== undefined && entry.accountId !== accountId)) continue;
      this.pending.delete(key);
      try {
        const cycle = billingCycleAt(new Date(`${entry.cycleId}T00:00:00.000Z`));
        for (const field of ['messagesSent', 'sendFailures'] as const) {
          const amount = entry[field];
          if (amount > 0)
            await this.seeded(entry.accountId, cycle, () =>
              this.store.add(entry.accountId, cycle.id, field, amount),
            );
        }
        this.markDirty(entry.accountId, entry.cycleId);
      } catch (error) {
        // Keep the counts for the next round, merged with any that arrived meanwhile.
        const newer = this.pending.get(key);
        this.pending.set(key, {
          ...entry,
          messagesSent: entry.messagesSent + (newer?.messagesSent ?? 0),
          sendFailures: entry.sendFailures + (newer?.sendFailures ?? 0),
        });
        this.logger.warn({ err: error }, 'could not add send counts; will retry');
      }
    }
  }

  /** Persists every counter that changed since the last flush. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    await this.flushDaily();
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

  private async flushDaily(): Promise<void> {
    if (!this.daily || this.dailyPending.size === 0) return;
    const batch = this.dailyPending;
    this.dailyPending = new Map();
    try {
      await this.daily.addHits([...batch.values()]);
    } catch (error) {
      // Put them back, added to any counted meanwhile: the next flush retries.
      for (const [key, entry] of batch) {
        const newer = this.dailyPending.get(key);
        this.dailyPending.set(key, { ...entry, apiHits: entry.apiHits + (newer?.apiHits ?? 0) });
      }
      this.logger.warn({ err: error, pending: batch.size }, 'daily usage flush failed; will retry');
    }
  }

  private cycleAt(now: Date): BillingCycle {
    const time = now.getTime();
    const last = this.cycle;
    if (last && time >= last.start.getTime() && time < last.end.getTime()) return last;
    return (this.cycle = billingCycleAt(now));
  }

  private utcDayOf(now: Date): string {
    const time = now.getTime();
    const last = this.day;
    if (last && time < last.endsAt && time >= last.endsAt - DAY_MS) return last.date;
    const date = utcDay(now);
    this.day = { date, endsAt: Date.parse(`${date}T00:00:00.000Z`) + DAY_MS };
    return date;
  }

  private markDirty(accountId: string, cycleId: string): void {
    const key = `${accountId}|${cycleId}`;
    // Once dirty, an account stays so until the next flush: no new entry for each of its hits.
    if (!this.dirty.has(key)) this.dirty.set(key, { accountId, cycleId });
  }

  /** Runs `operation`; when the store has no counters for the cycle yet, seeds them from PostgreSQL first. */
  private async seeded<T>(
    accountId: string,
    cycle: BillingCycle,
    operation: () => Promise<T | null>,
  ): Promise<T> {
    let first: T | null;
    try {
      first = await operation();
    } catch (error) {
      // orUnavailable's translation, inline: this is every request's quota round trip.
      if (error instanceof ApiError) throw error;
      throw Object.assign(unavailable('coordination store'), { cause: error });
    }
    if (first !== null) return first;
    const saved = await orUnavailable('database', () => this.usage.load(accountId, cycle.id));
    await orUnavailable('coordination store', () => this.store.seed(accountId, cycle.id, saved));
    const second = await orUnavailable('coordination store', operation);
    if (second === null) throw unavailable('coordination store');
    return second;
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

function utcDay(moment: Date): string {
  return moment.toISOString().slice(0, 10);
}
