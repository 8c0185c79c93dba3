import { MemoryUsageCounterStore, type UsageCounterField, type UsageCounterStore } from '@jumbe/coordination';
import { ZERO_USAGE, type UsageCounters } from '@jumbe/domain';
import {
  AccountRepository,
  DailyUsageRepository,
  openMigratedTestDatabase,
  PlanRepository,
  UsageRepository,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import { lastReadWithin } from '@jumbe/testing';
import pino from 'pino';
import { UsageMeter } from './usage-meter';

const logger = pino({ level: 'silent' });

/** A fixed moment, so no test straddles a month boundary; its billing cycle starts on CYCLE. */
const NOW = new Date('2031-03-15T10:00:00.000Z');
const CYCLE = '2031-03-01';

/**
 * The real in-memory store, with two levers at its edge: make the next `read` fail (Redis
 * unreachable for a moment) and hold an account's next `add` until released (a slow round trip).
 */
class EdgeStore implements UsageCounterStore {
  inner = new MemoryUsageCounterStore();
  private readFailures = 0;
  private addFailures = 0;
  private hitFailures = 0;
  private seedFailures = 0;
  private afterSeed: 'lose' | 'failHit' | null = null;
  private held: { accountId: string; reached: () => void; gate: Promise<void> } | null = null;

  /** Redis restarted: every counter it held is gone until seeded again. */
  restart(): void {
    this.inner = new MemoryUsageCounterStore();
  }

  failNextRead(): void {
    this.readFailures += 1;
  }

  failNextAdd(): void {
    this.addFailures += 1;
  }

  failNextHit(): void {
    this.hitFailures += 1;
  }

  /** The next seed fails (Redis unreachable). */
  failNextSeed(): void {
    this.seedFailures += 1;
  }

  /** The next seed is acknowledged but gone at once (a failover lost it); or the hit after it fails. */
  afterNextSeed(what: 'lose' | 'failHit'): void {
    this.afterSeed = what;
  }

  /** Holds the next `add` for `accountId`; `reached` resolves when it is waiting. */
  holdNextAdd(accountId: string): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    let reached!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
    this.held = { accountId, reached, gate };
    return { reached: reachedPromise, release };
  }

  async tryHit(accountId: string, cycleId: string, limit: number) {
    if (this.hitFailures > 0) {
      this.hitFailures -= 1;
      throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    }
    return this.inner.tryHit(accountId, cycleId, limit);
  }

  async add(accountId: string, cycleId: string, field: UsageCounterField, amount: number) {
    const held = this.held;
    if (held && held.accountId === accountId) {
      this.held = null;
      held.reached();
      await held.gate;
    }
    if (this.addFailures > 0) {
      this.addFailures -= 1;
      throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    }
    return this.inner.add(accountId, cycleId, field, amount);
  }

  async seed(accountId: string, cycleId: string, counters: UsageCounters) {
    if (this.seedFailures > 0) {
      this.seedFailures -= 1;
      throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    }
    const after = this.afterSeed;
    this.afterSeed = null;
    if (after === 'failHit') this.hitFailures += 1;
    if (after !== 'lose') await this.inner.seed(accountId, cycleId, counters);
  }

  async read(accountId: string, cycleId: string) {
    if (this.readFailures > 0) {
      this.readFailures -= 1;
      throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    }
    return this.inner.read(accountId, cycleId);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A real pino logger whose warnings are kept as parsed lines: what an operator reads. */
function warningsLogger(): { logger: pino.Logger; warnings: Array<Record<string, unknown>> } {
  const warnings: Array<Record<string, unknown>> = [];
  const recording = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
  return { logger: recording, warnings };
}

describe('UsageMeter (PostgreSQL)', () => {
  let db: MigratedTestDatabase;
  let usage: UsageRepository;
  let accounts: AccountRepository;
  let planId: string;
  const meters: UsageMeter[] = [];

  const newAccount = async () => (await accounts.create({ name: 'acct', planId })).id;
  const newMeter = (store: UsageCounterStore = new MemoryUsageCounterStore(), repository = usage) => {
    const meter = new UsageMeter(store, repository, logger, 60_000);
    meters.push(meter);
    return meter;
  };

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    usage = new UsageRepository(db.dataSource);
    accounts = new AccountRepository(db.dataSource);
    planId = (
      await new PlanRepository(db.dataSource).create({ name: 'p', monthlyApiHits: 50, maxSessions: 1 })
    ).id;
  });
  // Stops timers of meters a failing test left running (stop() is idempotent).
  afterEach(async () => {
    await Promise.all(meters.splice(0).map((meter) => meter.stop()));
  });
  afterAll(() => db.close());

  describe('countHit', () => {
    it('allows exactly the cap when 200 hits race for a limit of 50', async () => {
      const account = await newAccount();
      const store = new MemoryUsageCounterStore();
      const meter = newMeter(store);

      const results = await Promise.all(Array.from({ length: 200 }, () => meter.countHit(account, 50, NOW)));

      expect(results.filter((result) => result.allowed)).toHaveLength(50);
      for (const refused of results.filter((result) => !result.allowed))
        expect(refused.counters.apiHits).toBe(50);
      expect(await store.read(account, CYCLE)).toEqual({ ...ZERO_USAGE, apiHits: 50 });
      expect(results[0].cycle).toEqual({
        id: CYCLE,
        start: new Date('2031-03-01T00:00:00.000Z'),
        end: new Date('2031-04-01T00:00:00.000Z'),
      });
    });

    it('continues from the counters saved in PostgreSQL when the store has none (e.g. after a Redis restart)', async () => {
      const account = await newAccount();
      await usage.saveAtLeast(account, CYCLE, { apiHits: 40, messagesSent: 7, sendFailures: 2 });
      const meter = newMeter();

      const hit = await meter.countHit(account, 50, NOW);

      expect(hit).toEqual(
        expect.objectContaining({
          allowed: true,
          counters: { apiHits: 41, messagesSent: 7, sendFailures: 2 },
        }),
      );
      expect(await meter.current(account, NOW)).toEqual({ apiHits: 41, messagesSent: 7, sendFailures: 2 });
    });

    it('refuses the first hit when the saved counters already reached the cap', async () => {
      const account = await newAccount();
      await usage.saveAtLeast(account, CYCLE, { apiHits: 50, messagesSent: 0, sendFailures: 0 });

      const hit = await newMeter().countHit(account, 50, NOW);

      expect(hit.allowed).toBe(false);
      expect(hit.counters.apiHits).toBe(50);
    });

    it('starts each billing cycle from zero: last month’s saved hits do not count', async () => {
      const account = await newAccount();
      await usage.saveAtLeast(account, '2031-02-01', { apiHits: 50, messagesSent: 9, sendFailures: 1 });

      const hit = await newMeter().countHit(account, 50, NOW);

      expect(hit.allowed).toBe(true);
      expect(hit.counters).toEqual({ apiHits: 1, messagesSent: 0, sendFailures: 0 });
    });

    it('counts a hit in the cycle of its own moment when a later hit was counted first', async () => {
      const account = await newAccount();
      const meter = newMeter();
      // Two requests around midnight of the 1st: the later one reached the meter first.
      await meter.countHit(account, 50, new Date('2031-04-01T00:00:00.000Z'));

      const earlier = await meter.countHit(account, 50, new Date('2031-03-31T23:59:59.999Z'));

      expect(earlier.cycle.id).toBe('2031-03-01');
      expect(earlier.counters.apiHits).toBe(1);
    });

    it('moves a running gateway to the new cycle at the first hit past midnight UTC of the 1st', async () => {
      const account = await newAccount();
      const meter = newMeter();
      for (let i = 0; i < 50; i++) await meter.countHit(account, 50, new Date('2031-03-31T23:59:59.999Z'));

      const refused = await meter.countHit(account, 50, new Date('2031-03-31T23:59:59.999Z'));
      const nextMonth = await meter.countHit(account, 50, new Date('2031-04-01T00:00:00.000Z'));

      expect(refused.allowed).toBe(false);
      expect(nextMonth.allowed).toBe(true);
      expect(nextMonth.counters.apiHits).toBe(1);
      expect(nextMonth.cycle.id).toBe('2031-04-01');
    });
  });

  describe('a store failing while the counters are re-seeded (503 naming what is unreachable)', () => {
    const unreachable = (what: string) => ({
      status: 503,
      code: 'unavailable',
      message: `Service temporarily unavailable (${what} unreachable). Retry shortly.`,
      headers: { 'Retry-After': '2' },
    });

    it('names the database when the saved counters cannot be loaded', async () => {
      const account = await newAccount();
      const down = {
        load: async () => {
          throw new Error('Connection terminated unexpectedly');
        },
        saveManyAtLeast: (rows: Parameters<UsageRepository['saveManyAtLeast']>[0]) =>
          usage.saveManyAtLeast(rows),
      };
      const meter = newMeter(new MemoryUsageCounterStore(), down as unknown as UsageRepository);

      await expect(meter.countHit(account, 50, NOW)).rejects.toMatchObject(unreachable('database'));
    });

    it('names the coordination store when it refuses the seed, and counts the hit once it is back', async () => {
      const account = await newAccount();
      const store = new EdgeStore();
      const meter = newMeter(store);
      store.failNextSeed();

      await expect(meter.countHit(account, 50, NOW)).rejects.toMatchObject(unreachable('coordination store'));
      expect((await meter.countHit(account, 50, NOW)).counters.apiHits).toBe(1);
    });

    it('names the coordination store when the hit after the seed fails', async () => {
      const account = await newAccount();
      const store = new EdgeStore();
      const meter = newMeter(store);
      store.afterNextSeed('failHit');

      await expect(meter.countHit(account, 50, NOW)).rejects.toMatchObject(unreachable('coordination store'));
    });

    it('names the coordination store when the seeded counters are gone at once', async () => {
      const account = await newAccount();
      const store = new EdgeStore();
      const meter = newMeter(store);
      store.afterNextSeed('lose');

      await expect(meter.countHit(account, 50, NOW)).rejects.toMatchObject(unreachable('coordination store'));
    });
  });

  describe('flush', () => {
    it('persists the counted hits to PostgreSQL', async () => {
      const account = await newAccount();
      const meter = newMeter();
      for (let i = 0; i < 3; i++) await meter.countHit(account, 50, NOW);

      await meter.flush();

      expect(await usage.load(account, CYCLE)).toEqual({ apiHits: 3, messagesSent: 0, sendFailures: 0 });
    });

    it('persists every account counted since the last flush, each to its own row', async () => {
      const [first, second] = [await newAccount(), await newAccount()];
      const meter = newMeter();
      await meter.countHit(first, 50, NOW);
      for (let i = 0; i < 2; i++) await meter.countHit(second, 50, NOW);

      await meter.flush();

      expect(await usage.load(first, CYCLE)).toEqual({ apiHits: 1, messagesSent: 0, sendFailures: 0 });
      expect(await usage.load(second, CYCLE)).toEqual({ apiHits: 2, messagesSent: 0, sendFailures: 0 });
    });

    it('answers 503 (the coordination store unreachable) when the store fails, counting nothing', async () => {
      const account = await newAccount();
      const store = new EdgeStore();
      const meter = newMeter(store);
      store.failNextHit();
      await expect(meter.countHit(account, 50, NOW)).rejects.toMatchObject({
        status: 503,
        code: 'unavailable',
        message: 'Service temporarily unavailable (coordination store unreachable). Retry shortly.',
        cause: expect.objectContaining({ message: 'connect ECONNREFUSED 127.0.0.1:6379' }),
      });
      expect((await meter.countHit(account, 50, NOW)).counters.apiHits).toBe(1);
    });

    it('never lowers a counter another gateway saved higher, while raising the others', async () => {
      const account = await newAccount();
      const meter = newMeter();
      for (let i = 0; i < 3; i++) await meter.countHit(account, 50, NOW);
      meter.count(account, 'messagesSent', NOW);
      meter.count(account, 'messagesSent', NOW);
      await meter.current(account, NOW);
      // Meanwhile another gateway flushed higher apiHits and sendFailures.
      await usage.saveAtLeast(account, CYCLE, { apiHits: 10, messagesSent: 0, sendFailures: 4 });

      await meter.flush();

      expect(await usage.load(account, CYCLE)).toEqual({ apiHits: 10, messagesSent: 2, sendFailures: 4 });
    });

    it('saves the sends of an account that made no counted API hit (a dashboard’s sends)', async () => {
      const account = await newAccount();
      const meter = newMeter();
      meter.count(account, 'messagesSent', NOW);
      meter.count(account, 'sendFailures', NOW);

      await meter.stop();

      expect(await usage.load(account, CYCLE)).toEqual({ apiHits: 0, messagesSent: 1, sendFailures: 1 });
    });

    it('still saves the accounts counted after a Redis restart that lost another’s counters', async () => {
      const [lost, counted] = [await newAccount(), await newAccount()];
      const store = new EdgeStore();
      const meter = newMeter(store);
      await meter.countHit(lost, 50, NOW);
      await meter.countHit(counted, 50, NOW);
      store.restart();
      await meter.countHit(counted, 50, NOW); // re-seeded from PostgreSQL, which had nothing yet

      await meter.flush();

      expect(await usage.load(counted, CYCLE)).toEqual({ apiHits: 1, messagesSent: 0, sendFailures: 0 });
      expect(await usage.load(lost, CYCLE)).toEqual(ZERO_USAGE);
    });

    it('keeps the counters when the store fails during a flush, and writes them on the next flush', async () => {
      const account = await newAccount();
      const other = await newAccount();
      const store = new EdgeStore();
      const meter = newMeter(store);
      await meter.countHit(account, 50, NOW);
      await meter.countHit(account, 50, NOW);
      await meter.countHit(other, 50, NOW);

      store.failNextRead();
      await expect(meter.flush()).resolves.toBeUndefined();
      expect(await usage.load(account, CYCLE)).toEqual(ZERO_USAGE);

      await meter.flush();
      expect(await usage.load(account, CYCLE)).toEqual({ apiHits: 2, messagesSent: 0, sendFailures: 0 });
      expect(await usage.load(other, CYCLE)).toEqual({ apiHits: 1, messagesSent: 0, sendFailures: 0 });
    });

    it('keeps the counters when PostgreSQL fails during a flush, and writes them on the next flush', async () => {
      const account = await newAccount();
      let failures = 1;
      const flakyUsage = {
        load: (accountId: string, periodStart: string) => usage.load(accountId, periodStart),
        saveManyAtLeast: async (rows: Parameters<UsageRepository['saveManyAtLeast']>[0]) => {
          if (failures-- > 0) throw new Error('Connection terminated unexpectedly');
          return usage.saveManyAtLeast(rows);
        },
      };
      const meter = newMeter(new MemoryUsageCounterStore(), flakyUsage as UsageRepository);
      await meter.countHit(account, 50, NOW);

      await expect(meter.flush()).resolves.toBeUndefined();
      expect(await usage.load(account, CYCLE)).toEqual(ZERO_USAGE);

      await meter.flush();
      expect(await usage.load(account, CYCLE)).toEqual({ apiHits: 1, messagesSent: 0, sendFailures: 0 });
    });
  });

  describe('count', () => {
    it('adds counted sends to the store within the batch interval once started', async () => {
      const account = await newAccount();
      const store = new MemoryUsageCounterStore();
      const meter = newMeter(store);
      meter.start();

      meter.count(account, 'messagesSent', NOW);
      meter.count(account, 'messagesSent', NOW);
      meter.count(account, 'messagesSent', NOW);
      meter.count(account, 'sendFailures', NOW);
      expect(await store.read(account, CYCLE)).toBeNull(); // batched, not sent yet

      const started = Date.now();
      const counters = await lastReadWithin(
        () => store.read(account, CYCLE),
        (value) => value?.messagesSent === 3,
        2_000,
        10,
      );
      expect(counters).toEqual({ apiHits: 0, messagesSent: 3, sendFailures: 1 });
      expect(Date.now() - started).toBeLessThan(1_000);
    });

    it('adds counted sends at once when the counters are read through current()', async () => {
      const account = await newAccount();
      await usage.saveAtLeast(account, CYCLE, { apiHits: 5, messagesSent: 5, sendFailures: 0 });
      const store = new MemoryUsageCounterStore();
      const meter = newMeter(store); // not started: no timer would ever add them

      meter.count(account, 'messagesSent', NOW);
      meter.count(account, 'sendFailures', NOW);

      expect(await meter.current(account, NOW)).toEqual({ apiHits: 5, messagesSent: 6, sendFailures: 1 });
      expect(await store.read(account, CYCLE)).toEqual({ apiHits: 5, messagesSent: 6, sendFailures: 1 });
    });

    // Regression: each pending entry is read as it is reached, so a current() call that added an
    // account's counts while the batch timer was busy does not make the timer add them again.
    it('keeps the send counts the store refused and adds them with the later ones', async () => {
      const account = await newAccount();
      const store = new EdgeStore();
      const meter = newMeter(store);
      meter.count(account, 'messagesSent', NOW);
      meter.count(account, 'messagesSent', NOW);
      store.failNextAdd();
      expect((await meter.current(account, NOW)).messagesSent).toBe(0);

      meter.count(account, 'messagesSent', NOW);
      meter.count(account, 'sendFailures', NOW);
      expect(await meter.current(account, NOW)).toMatchObject({ messagesSent: 3, sendFailures: 1 });
    });

    it('merges sends counted while a refused add was under way with the refused ones', async () => {
      const account = await newAccount();
      const store = new EdgeStore();
      const meter = newMeter(store);
      meter.count(account, 'messagesSent', NOW);
      meter.count(account, 'messagesSent', NOW);
      meter.count(account, 'sendFailures', NOW);
      const held = store.holdNextAdd(account);
      store.failNextAdd();
      const refused = meter.current(account, NOW);
      await held.reached;
      meter.count(account, 'messagesSent', NOW); // arrive while the add is on its way
      meter.count(account, 'sendFailures', NOW);
      held.release();
      expect((await refused).messagesSent).toBe(0);

      expect((await meter.current(account, NOW)).messagesSent).toBe(3);
      expect((await meter.current(account, NOW)).sendFailures).toBe(2);
    });

    it('writes the counters to PostgreSQL on its own, about once per flush interval', async () => {
      const account = await newAccount();
      const meter = new UsageMeter(new MemoryUsageCounterStore(), usage, logger, 50);
      meters.push(meter);
      meter.start();
      await meter.countHit(account, 50, NOW);
      const saved = await lastReadWithin(
        () => usage.load(account, CYCLE),
        (value) => value.apiHits === 1,
        5_000,
        20,
      );
      expect(saved).toEqual({ apiHits: 1, messagesSent: 0, sendFailures: 0 });
    });

    it('counts each send once when current() runs while the batch timer is adding counts', async () => {
      const [first, second] = [await newAccount(), await newAccount()];
      const store = new EdgeStore();
      await store.seed(first, CYCLE, ZERO_USAGE);
      await store.seed(second, CYCLE, ZERO_USAGE);
      const meter = newMeter(store);
      meter.count(first, 'messagesSent', NOW);
      meter.count(second, 'messagesSent', NOW);
      const slowAdd = store.holdNextAdd(first);

      meter.start();
      await slowAdd.reached; // the batch timer is now waiting on the store for `first`
      expect(await meter.current(second, NOW)).toEqual({ apiHits: 0, messagesSent: 1, sendFailures: 0 });
      slowAdd.release();
      await sleep(50); // lets the timer's round finish
      await meter.stop();

      expect(await store.read(first, CYCLE)).toEqual({ apiHits: 0, messagesSent: 1, sendFailures: 0 });
      expect(await store.read(second, CYCLE)).toEqual({ apiHits: 0, messagesSent: 1, sendFailures: 0 });
    });
  });

  describe('stop', () => {
    it('writes nothing more once stopped: no batch added, no flush, though counts come in', async () => {
      const account = await newAccount();
      const store = new MemoryUsageCounterStore();
      await store.seed(account, CYCLE, ZERO_USAGE);
      const meter = new UsageMeter(store, usage, logger, 50);
      meters.push(meter);
      meter.start();
      await meter.stop();

      await meter.countHit(account, 50, NOW);
      meter.count(account, 'messagesSent', NOW);
      // Absence cannot be polled for: wait several flush (50 ms) and batch (200 ms) intervals.
      await sleep(700);

      expect(await store.read(account, CYCLE)).toEqual({ apiHits: 1, messagesSent: 0, sendFailures: 0 });
      expect(await usage.load(account, CYCLE)).toEqual(ZERO_USAGE);
    });

    it('adds the batched counts and flushes everything to PostgreSQL', async () => {
      const account = await newAccount();
      const meter = newMeter();
      meter.start();
      await meter.countHit(account, 50, NOW);
      await meter.countHit(account, 50, NOW);
      meter.count(account, 'messagesSent', NOW);
      meter.count(account, 'sendFailures', NOW);

      await meter.stop();

      expect(await usage.load(account, CYCLE)).toEqual({ apiHits: 2, messagesSent: 1, sendFailures: 1 });
    });
  });

  describe('warnings an operator sees when a write-behind fails (each retried later)', () => {
    it('warns with the error and the accounts pending when the counters cannot be saved', async () => {
      const [first, second] = [await newAccount(), await newAccount()];
      const store = new EdgeStore();
      const { logger: recording, warnings } = warningsLogger();
      const meter = new UsageMeter(store, usage, recording, 60_000);
      meters.push(meter);
      await meter.countHit(first, 50, NOW);
      await meter.countHit(second, 50, NOW);
      store.failNextRead();

      await meter.flush();

      expect(warnings).toEqual([
        expect.objectContaining({
          level: 40,
          msg: 'usage flush failed; will retry',
          pending: 2,
          err: expect.objectContaining({ message: 'connect ECONNREFUSED 127.0.0.1:6379' }),
        }),
      ]);
    });

    it('warns with the error when send counts cannot be added to the store', async () => {
      const account = await newAccount();
      const store = new EdgeStore();
      const { logger: recording, warnings } = warningsLogger();
      const meter = new UsageMeter(store, usage, recording, 60_000);
      meters.push(meter);
      meter.count(account, 'messagesSent', NOW);
      store.failNextAdd();

      await meter.current(account, NOW);

      expect(warnings).toEqual([
        expect.objectContaining({
          level: 40,
          msg: 'could not add send counts; will retry',
          err: expect.objectContaining({
            message: expect.stringContaining('coordination store unreachable'),
          }),
        }),
      ]);
    });

    it('warns with the error and the days pending when the per-day hits cannot be saved', async () => {
      const account = await newAccount();
      const real = new DailyUsageRepository(db.dataSource);
      const down = {
        addHits: async () => {
          throw new Error('Connection terminated unexpectedly');
        },
        hitsBetween: real.hitsBetween.bind(real),
      };
      const { logger: recording, warnings } = warningsLogger();
      const meter = new UsageMeter(new MemoryUsageCounterStore(), usage, recording, 60_000, down);
      meters.push(meter);
      await meter.countHit(account, 50, NOW);
      await meter.countHit(account, 50, new Date('2031-03-16T10:00:00.000Z'));

      await meter.flush();

      expect(warnings).toEqual([
        expect.objectContaining({
          level: 40,
          msg: 'daily usage flush failed; will retry',
          pending: 2,
          err: expect.objectContaining({ message: 'Connection terminated unexpectedly' }),
        }),
      ]);
    });
  });

  describe('hitsPerDay', () => {
    const daily = () => new DailyUsageRepository(db.dataSource);

    it('answers no days when the meter keeps no per-day ledger', async () => {
      const account = await newAccount();
      const meter = newMeter();
      await meter.countHit(account, 50, NOW);

      expect(await meter.hitsPerDay(account, NOW)).toEqual([]);
    });

    it('adds the hits of several gateways per UTC day, zeros for days without hits, capped hits not counted', async () => {
      const account = await newAccount();
      const store = new MemoryUsageCounterStore();
      const a = new UsageMeter(store, usage, logger, 60_000, daily());
      const b = new UsageMeter(store, usage, logger, 60_000, daily());
      meters.push(a, b);
      const day2 = new Date('2031-03-02T23:59:59.000Z');
      await a.countHit(account, 50, day2);
      await b.countHit(account, 50, day2);
      await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).countHit(account, 50, NOW)));
      await b.flush();

      const days = await a.hitsPerDay(account, NOW);

      expect(days).toHaveLength(15);
      expect(days[0]).toEqual({ date: '2031-03-01', apiHits: 0 });
      expect(days[1]).toEqual({ date: '2031-03-02', apiHits: 2 });
      expect(days[14]).toEqual({ date: '2031-03-15', apiHits: 48 });
      expect(days.reduce((sum, day) => sum + day.apiHits, 0)).toBe(50);
    });

    it('counts a hit on the UTC day of its own moment when a later hit was counted first', async () => {
      const account = await newAccount();
      const meter = new UsageMeter(new MemoryUsageCounterStore(), usage, logger, 60_000, daily());
      meters.push(meter);
      // Two requests around midnight: the later one's hit came back from the store first.
      await meter.countHit(account, 50, new Date('2031-03-15T00:00:00.001Z'));
      await meter.countHit(account, 50, new Date('2031-03-14T23:59:59.999Z'));
      await meter.countHit(account, 50, new Date('2031-03-15T00:00:00.000Z')); // midnight is the new day's

      const days = await meter.hitsPerDay(account, NOW);

      expect(days.slice(-2)).toEqual([
        { date: '2031-03-14', apiHits: 1 },
        { date: '2031-03-15', apiHits: 2 },
      ]);
    });

    it('answers 503 naming the database when the days cannot be read', async () => {
      const account = await newAccount();
      const real = daily();
      const down = {
        addHits: real.addHits.bind(real),
        hitsBetween: async () => {
          throw new Error('Connection terminated unexpectedly');
        },
      };
      const meter = new UsageMeter(new MemoryUsageCounterStore(), usage, logger, 60_000, down);
      meters.push(meter);

      await expect(meter.hitsPerDay(account, NOW)).rejects.toMatchObject({
        status: 503,
        message: 'Service temporarily unavailable (database unreachable). Retry shortly.',
      });
    });

    it('keeps the hits of a failed write and adds them on the next flush', async () => {
      const account = await newAccount();
      let failures = 1;
      const real = daily();
      const flaky = {
        addHits: async (rows: Parameters<DailyUsageRepository['addHits']>[0]) => {
          if (failures-- > 0) throw new Error('Connection terminated unexpectedly');
          return real.addHits(rows);
        },
        hitsBetween: real.hitsBetween.bind(real),
      };
      const meter = new UsageMeter(new MemoryUsageCounterStore(), usage, logger, 60_000, flaky);
      meters.push(meter);
      await meter.countHit(account, 50, NOW);
      await meter.flush();
      await meter.countHit(account, 50, NOW);

      expect((await meter.hitsPerDay(account, NOW)).at(-1)).toEqual({ date: '2031-03-15', apiHits: 2 });
    });

    it('adds the hits counted while a daily write was failing to the failed ones', async () => {
      const account = await newAccount();
      const real = daily();
      let writing: () => void = () => undefined;
      const writeReached = new Promise<void>((resolve) => (writing = resolve));
      let fail: () => void = () => undefined;
      let failures = 1;
      const flaky = {
        addHits: async (rows: Parameters<DailyUsageRepository['addHits']>[0]) => {
          if (failures-- > 0) {
            // A slow write that fails at last: hits keep coming in meanwhile.
            writing();
            await new Promise<void>((resolve) => (fail = resolve));
            throw new Error('Connection terminated unexpectedly');
          }
          return real.addHits(rows);
        },
        hitsBetween: real.hitsBetween.bind(real),
      };
      const meter = new UsageMeter(new MemoryUsageCounterStore(), usage, logger, 60_000, flaky);
      meters.push(meter);
      await meter.countHit(account, 50, NOW);
      await meter.countHit(account, 50, NOW);
      const failedFlush = meter.flush();
      await writeReached;
      await meter.countHit(account, 50, NOW);
      fail();
      await failedFlush;

      expect((await meter.hitsPerDay(account, NOW)).at(-1)).toEqual({ date: '2031-03-15', apiHits: 3 });
    });
  });
});
