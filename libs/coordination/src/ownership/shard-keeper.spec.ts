import { DEFAULT_SHARD_COUNT } from '@jumbe/domain';
import { InThreadLeaseUpkeep } from './in-thread-lease-upkeep';
import { MemoryShardLeaseStore } from './memory-shard-lease-store';
import { MemoryWorkerRegistry } from './memory-worker-registry';
import {
  ShardKeeper,
  type ShardKeeperLogger,
  type ShardKeeperOptions,
  type ShardLease,
  type ShardOwner,
} from './shard-keeper';
import type { ShardLeaseStore } from './shard-lease-store';
import type { WorkerRegistry } from './worker-registry';

/**
 * Fast ticks and heartbeats. The keeper's own lease stays above the keeper's fixed local safety
 * margin (LEASE_SAFETY_MARGIN_MS, 1.5 s); leases held by the simulated other workers are short.
 *
 * Time is Jest's fake clock (Date.now and every timer), moved forward only by the test: a lease
 * expires, a tick runs, a heartbeat lapses when the test says so, never because the machine was
 * busy. (On a loaded machine, a real 300 ms lease renewed every 20 ms was dropped by the keeper's
 * guard whenever the event loop stalled, as it must: the guard was right, the test was not.)
 */
const OPTIONS: ShardKeeperOptions = { tickMs: 20, leaseTtlMs: 2_000, heartbeatTtlMs: 200 };
const FOREIGN_LEASE_MS = 300;

/** Lets `ms` of fake time pass, running every timer (and what it awaits) due meanwhile. */
const elapse = (ms: number) => jest.advanceTimersByTimeAsync(ms);

async function eventually(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await elapse(10);
  }
}

/** Waits for work that itself waits on timers (a stop that drops shards), moving time as it goes. */
async function settled<T>(work: Promise<T>): Promise<T> {
  let done = false;
  const result = work.finally(() => (done = true));
  for (let step = 0; !done && step < 10_000; step++) await elapse(1);
  return result;
}

/** A pause on the fake clock: it ends when the test lets that much time pass. */
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const silent: ShardKeeperLogger = { info: () => undefined, warn: () => undefined, debug: () => undefined };

/** A logger that keeps what operators would read: info and warn lines, in order. */
class RecordingLogger implements ShardKeeperLogger {
  readonly lines: { level: 'info' | 'warn'; details: object; message: string }[] = [];
  info(details: object, message: string): void {
    this.lines.push({ level: 'info', details, message });
  }
  warn(details: object, message: string): void {
    this.lines.push({ level: 'warn', details, message });
  }
  debug(): void {
    // Not what operators read.
  }
  messages(level: 'info' | 'warn'): string[] {
    return this.lines.filter((line) => line.level === level).map((line) => line.message);
  }
}

interface OwnerCall {
  workerId: string;
  kind: 'adopt' | 'drop' | 'lost';
  shard: number;
  token?: number;
}

/**
 * The work side of every keeper in a test: records adopt/drop in order, and notes any moment at
 * which a shard is adopted while another worker still serves it (adopted and not yet dropped).
 */
class OwnershipLedger {
  readonly calls: OwnerCall[] = [];
  readonly overlaps: string[] = [];
  private readonly servedBy = new Map<number, string>();

  ownerFor(workerId: string): ShardOwner {
    return {
      adopt: async (shard, token) => {
        const current = this.servedBy.get(shard);
        if (current !== undefined && current !== workerId) {
          this.overlaps.push(`shard ${shard}: adopted by ${workerId} while ${current} serves it`);
        }
        this.servedBy.set(shard, workerId);
        this.calls.push({ workerId, kind: 'adopt', shard, token });
        await delay(1); // Adopting takes a moment (restoring sessions), as in a real worker.
      },
      drop: async (shard) => {
        await delay(1);
        if (this.servedBy.get(shard) === workerId) this.servedBy.delete(shard);
        this.calls.push({ workerId, kind: 'drop', shard });
      },
      lost: (shard) => void this.calls.push({ workerId, kind: 'lost', shard }),
    };
  }

  /** The shards `workerId` serves now, by its adopt and drop calls. */
  served(workerId: string): number[] {
    return [...this.servedBy]
      .filter(([, holder]) => holder === workerId)
      .map(([shard]) => shard)
      .sort((a, b) => a - b);
  }

  lastToken(workerId: string, shard: number): number | undefined {
    return this.calls.filter((c) => c.workerId === workerId && c.shard === shard && c.kind === 'adopt').at(-1)
      ?.token;
  }
}

const ALL_SHARDS = Array.from({ length: DEFAULT_SHARD_COUNT }, (_, shard) => shard);

describe('ShardKeeper (in-memory leases and registry)', () => {
  let leases: MemoryShardLeaseStore;
  let registry: MemoryWorkerRegistry;
  let ledger: OwnershipLedger;
  const keepers: ShardKeeper[] = [];

  beforeEach(() => {
    jest.useFakeTimers();
    leases = new MemoryShardLeaseStore();
    registry = new MemoryWorkerRegistry();
    ledger = new OwnershipLedger();
  });
  afterEach(async () => {
    await settled(Promise.all(keepers.splice(0).map((keeper) => keeper.stop())));
    jest.useRealTimers();
  });

  async function startKeeper(workerId: string): Promise<ShardKeeper> {
    const keeper = new ShardKeeper(workerId, leases, registry, ledger.ownerFor(workerId), silent, OPTIONS);
    keepers.push(keeper);
    await keeper.start();
    return keeper;
  }

  const holders = async () => Promise.all(ALL_SHARDS.map((shard) => leases.holder(shard)));

  it('takes all 64 shards when it is alone, with a lease and token for each', async () => {
    const keeper = await startKeeper('worker-a');

    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect(ledger.served('worker-a')).toEqual(ALL_SHARDS);
    expect((await holders()).every((holder) => holder?.workerId === 'worker-a' && holder.token === 1)).toBe(
      true,
    );
    // Renewing keeps them, without adopting anything twice.
    await elapse(1_000);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect(ledger.calls.filter((call) => call.kind === 'adopt')).toHaveLength(DEFAULT_SHARD_COUNT);
    expect(ledger.calls.filter((call) => call.kind === 'drop')).toHaveLength(0);
  });

  it('splits the shards 32/32 with a second keeper, never serving a shard twice at once', async () => {
    const a = await startKeeper('worker-a');
    const b = await startKeeper('worker-b');

    await eventually('a 32/32 split', () => a.heldShards().length === 32 && b.heldShards().length === 32);
    expect([...a.heldShards(), ...b.heldShards()].sort((x, y) => x - y)).toEqual(ALL_SHARDS);
    expect(ledger.served('worker-a')).toEqual(a.heldShards());
    expect(ledger.served('worker-b')).toEqual(b.heldShards());
    expect(ledger.overlaps).toEqual([]);

    // Every shard b took was dropped by a first, and b's token for it is newer.
    for (const shard of b.heldShards()) {
      const forShard = ledger.calls.filter((call) => call.shard === shard);
      expect(forShard.map((call) => `${call.workerId}:${call.kind}`)).toEqual([
        'worker-a:adopt',
        'worker-a:drop',
        'worker-b:adopt',
      ]);
      expect(ledger.lastToken('worker-b', shard)).toBeGreaterThan(ledger.lastToken('worker-a', shard)!);
    }
    // Stable once split: nothing moves any more.
    const settled = ledger.calls.length;
    await elapse(OPTIONS.tickMs * 10);
    expect(ledger.calls).toHaveLength(settled);
  });

  it('spreads the shards evenly over three keepers, each served by exactly one', async () => {
    const keepersStarted = [
      await startKeeper('worker-a'),
      await startKeeper('worker-b'),
      await startKeeper('worker-c'),
    ];
    await eventually(
      'an even split',
      () =>
        keepersStarted.every((keeper) => [21, 22].includes(keeper.heldShards().length)) &&
        keepersStarted.reduce((sum, keeper) => sum + keeper.heldShards().length, 0) === DEFAULT_SHARD_COUNT,
    );
    expect(keepersStarted.flatMap((keeper) => keeper.heldShards()).sort((x, y) => x - y)).toEqual(ALL_SHARDS);
    expect(ledger.overlaps).toEqual([]);
  });

  it('spreads the deployment’s shard count when it is not 64 (here 1,024 over 3 keepers)', async () => {
    const options = { ...OPTIONS, shardCount: 1_024 };
    const started = await Promise.all(
      ['worker-a', 'worker-b', 'worker-c'].map(async (workerId) => {
        const keeper = new ShardKeeper(
          workerId,
          leases,
          registry,
          ledger.ownerFor(workerId),
          silent,
          options,
        );
        keepers.push(keeper);
        await keeper.start();
        return keeper;
      }),
    );
    await eventually('1,024 shards split 341/341/342', () =>
      started.every((keeper) => [341, 342].includes(keeper.heldShards().length)),
    );
    expect(started.flatMap((keeper) => keeper.heldShards()).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 1_024 }, (_, shard) => shard),
    );
    expect(ledger.overlaps).toEqual([]);
  });

  it('hands every shard to the remaining keeper when one stops', async () => {
    const a = await startKeeper('worker-a');
    const b = await startKeeper('worker-b');
    await eventually('a 32/32 split', () => a.heldShards().length === 32 && b.heldShards().length === 32);

    await settled(b.stop());
    expect(b.heldShards()).toEqual([]);
    expect(ledger.served('worker-b')).toEqual([]);
    expect(await registry.liveWorkers()).toEqual(['worker-a']);

    // Well before b's heartbeat or leases would have expired: stop() hands over at once.
    const handedOver = Date.now();
    await eventually('a to hold everything', () => a.heldShards().length === DEFAULT_SHARD_COUNT);
    expect(Date.now() - handedOver).toBeLessThan(OPTIONS.heartbeatTtlMs);
    expect(ledger.served('worker-a')).toEqual(ALL_SHARDS);
    expect(ledger.overlaps).toEqual([]);
  });

  it('takes the shards of a keeper that died (stopped heartbeating and renewing) once its leases expire', async () => {
    const a = await startKeeper('worker-a');
    // A worker that took half the shards and then froze: heartbeat and leases, never renewed.
    await registry.heartbeat('worker-frozen', OPTIONS.heartbeatTtlMs);
    await eventually(
      'a to give the frozen worker its share',
      async () => (await holders()).filter((holder) => holder === null).length === 32,
    );
    const frozenShards = ALL_SHARDS.filter((shard) => !a.heldShards().includes(shard));
    expect(frozenShards).toHaveLength(32);
    for (const shard of frozenShards)
      expect(await leases.acquire(shard, 'worker-frozen', FOREIGN_LEASE_MS)).not.toBeNull();

    await eventually(
      'a to hold everything again',
      () => a.heldShards().length === DEFAULT_SHARD_COUNT,
      3_000,
    );
    expect(ledger.served('worker-a')).toEqual(ALL_SHARDS);
  });

  it('stops serving a shard whose lease another worker took, and takes it back once that lease expires', async () => {
    const logger = new RecordingLogger();
    const a = await startCustom('worker-a', { logger });
    const shard = 17;
    const token = ledger.lastToken('worker-a', shard)!;

    // Simulate losing the lease behind the keeper's back (expired during a pause, taken by another).
    await leases.release(shard, 'worker-a', token);
    const intruderToken = await leases.acquire(shard, 'intruder', FOREIGN_LEASE_MS);
    expect(intruderToken).toBeGreaterThan(token);
    const takenAt = Date.now();

    await eventually('the shard to be dropped', () => !ledger.served('worker-a').includes(shard));
    // Found at the next renewal, not when its own lease would have gone stale.
    expect(Date.now() - takenAt).toBeLessThan(OPTIONS.leaseTtlMs / 4);
    expect(logger.lines).toContainEqual({
      level: 'warn',
      details: { shard },
      message: 'shard lease lost; stopping its work here',
    });
    expect(a.heldShards()).not.toContain(shard);
    // Told as a loss (what the lease-loss metric counts), then dropped.
    expect(ledger.calls.filter((call) => call.shard === shard).map((call) => call.kind)).toEqual([
      'adopt',
      'lost',
      'drop',
    ]);
    expect(await leases.holder(shard)).toEqual({ workerId: 'intruder', token: intruderToken });
    // Other shards are untouched.
    expect(a.heldShards()).toHaveLength(DEFAULT_SHARD_COUNT - 1);

    // The intruder never renews: once its lease runs out, the shard comes back with a newer token.
    await eventually('the shard to be taken back', () => a.heldShards().includes(shard), 3_000);
    expect(ledger.lastToken('worker-a', shard)).toBeGreaterThan(intruderToken!);
    expect(a.heldShards()).toEqual(ALL_SHARDS); // in order, the one taken back included
  });

  it('keeps its shards when configured with a short lease (300 ms, renewed every 20 ms)', async () => {
    // Regression: the local lease-age guard scales its safety margin with short leases, so a
    // freshly renewed shard is never judged stale.
    const shortLease: ShardKeeperOptions = { tickMs: 20, leaseTtlMs: 300, heartbeatTtlMs: 200 };
    const keeper = new ShardKeeper(
      'worker-short',
      leases,
      registry,
      ledger.ownerFor('worker-short'),
      silent,
      shortLease,
    );
    keepers.push(keeper);
    await keeper.start();

    await elapse(1_000);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect(ledger.calls.filter((call) => call.kind === 'drop')).toHaveLength(0);
    expect(ledger.calls.filter((call) => call.kind === 'adopt')).toHaveLength(DEFAULT_SHARD_COUNT);
  });

  it('keeps every lease while its owner takes 3x the lease time to adopt, renewing all in one call', async () => {
    // Restoring thousands of sessions can take longer than a lease: upkeep must not wait for it.
    const lease: ShardKeeperOptions = { tickMs: 20, leaseTtlMs: 400, heartbeatTtlMs: 200 };
    const adoptMs = lease.leaseTtlMs * 3;
    const calls: string[] = [];
    let adopted = 0;
    const slowOwner: ShardOwner = {
      adopt: async (shard) => {
        calls.push(`adopt:${shard}`);
        await delay(adoptMs);
        adopted += 1;
      },
      drop: async (shard) => {
        calls.push(`drop:${shard}`);
      },
    };
    let renewAllCalls = 0;
    const counting = Object.assign(Object.create(leases) as MemoryShardLeaseStore, {
      renewAll: (...args: Parameters<MemoryShardLeaseStore['renewAll']>) => {
        renewAllCalls += 1;
        return leases.renewAll(...args);
      },
      renew: () => Promise.reject(new Error('leases are renewed together, never one by one')),
    });
    const keeper = new ShardKeeper('worker-slow', counting, registry, slowOwner, silent, lease);
    keepers.push(keeper);
    await keeper.start();
    // start() does not wait for adoption either: every shard is being adopted, none finished.
    expect(calls.filter((call) => call.startsWith('adopt'))).toHaveLength(DEFAULT_SHARD_COUNT);
    expect(adopted).toBe(0);

    await elapse(adoptMs + lease.leaseTtlMs);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect(calls.filter((call) => call.startsWith('drop'))).toEqual([]);
    expect(calls.filter((call) => call.startsWith('adopt'))).toHaveLength(DEFAULT_SHARD_COUNT);
    expect(adopted).toBe(DEFAULT_SHARD_COUNT);
    expect(
      (await holders()).every((holder) => holder?.workerId === 'worker-slow' && holder.token === 1),
    ).toBe(true);
    // One round trip per renewal, for all 64 leases: far fewer calls than leases x renewals.
    expect(renewAllCalls).toBeGreaterThan(5);
    expect(renewAllCalls).toBeLessThan((adoptMs + lease.leaseTtlMs) / 10);
  });

  /** A keeper with its own owner, logger, options or stores. */
  async function startCustom(
    workerId: string,
    {
      owner = ledger.ownerFor(workerId),
      logger = silent,
      options = OPTIONS,
      store = leases as ShardLeaseStore,
      workers = registry as WorkerRegistry,
    }: {
      owner?: ShardOwner;
      logger?: ShardKeeperLogger;
      options?: ShardKeeperOptions;
      store?: ShardLeaseStore;
      workers?: WorkerRegistry;
    } = {},
  ): Promise<ShardKeeper> {
    const keeper = new ShardKeeper(workerId, store, workers, owner, logger, options);
    keepers.push(keeper);
    await keeper.start();
    return keeper;
  }

  it('stops serving every shard before its lease can expire once renewals stop getting through', async () => {
    // A store that stops answering (wedged, or a network partition): the leases run out there
    // while the keeper cannot know. It must have stopped serving before that. (Its calls answer
    // again at the end, so the keeper can stop.)
    let unwedge: () => void = () => undefined;
    let wedge: Promise<void> | null = null;
    const answered = <T>(call: () => Promise<T>): Promise<T> => (wedge ? wedge.then(call) : call());
    const wedgeable: ShardLeaseStore = {
      acquire: (...args) => answered(() => leases.acquire(...args)),
      renew: (...args) => answered(() => leases.renew(...args)),
      renewAll: (...args) => answered(() => leases.renewAll(...args)),
      release: (...args) => answered(() => leases.release(...args)),
      holder: (...args) => answered(() => leases.holder(...args)),
    };
    const grants = new Map<number, ShardLease>();
    const validWhenLost: boolean[] = [];
    const lostAt: number[] = [];
    const owner: ShardOwner = {
      adopt: async (shard, _token, lease) => {
        if (lease) grants.set(shard, lease);
      },
      drop: async () => undefined,
      lost: (shard) => {
        lostAt.push(Date.now());
        validWhenLost.push(grants.get(shard)?.valid() ?? true);
      },
    };
    // The registry lives on the same Redis: its calls hang too, so ticks stall as well.
    const wedgeableRegistry: WorkerRegistry = {
      heartbeat: (...args) => answered(() => registry.heartbeat(...args)),
      leave: (...args) => answered(() => registry.leave(...args)),
      liveWorkers: () => answered(() => registry.liveWorkers()),
    };
    const logger = new RecordingLogger();
    const keeper = await startCustom('worker-a', {
      owner,
      store: wedgeable,
      workers: wedgeableRegistry,
      logger,
    });

    await elapse(5_000);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect([...grants.values()].every((lease) => lease.valid())).toBe(true);

    wedge = new Promise((resolve) => (unwedge = resolve));
    const lastRenewalSentBy = Date.now();
    try {
      await eventually('every shard given up', () => keeper.heldShards().length === 0, 10_000);
    } finally {
      wedge = null;
      unwedge();
    }
    expect(lostAt).toHaveLength(DEFAULT_SHARD_COUNT);
    // The last renewal that got through was sent at most one renewal interval before the wedge.
    const earliestExpiry = lastRenewalSentBy - OPTIONS.tickMs + OPTIONS.leaseTtlMs;
    expect(Math.max(...lostAt)).toBeLessThan(earliestExpiry);
    // The owner asking its lease (before a reconnect, say) already hears "no" when told of the loss.
    expect(validWhenLost.every((valid) => valid === false)).toBe(true);
    expect([...grants.values()].every((lease) => !lease.valid())).toBe(true);
    expect(logger.lines).toContainEqual({
      level: 'warn',
      details: { shard: 0 },
      message: 'shard lease could not be renewed in time; stopping its work here',
    });
  });

  it('renews its leases in time even when its tick is as long as the lease', async () => {
    const slowTick: ShardKeeperOptions = { tickMs: 2_000, leaseTtlMs: 2_000, heartbeatTtlMs: 4_000 };
    const keeper = await startCustom('worker-a', { options: slowTick });
    await elapse(20_000);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect(ledger.calls.filter((call) => call.kind !== 'adopt')).toEqual([]);
  });

  it('keeps its shards through renewals that fail for a moment, and says so', async () => {
    let failing = false;
    const flaky = Object.assign(Object.create(leases) as MemoryShardLeaseStore, {
      renewAll: (...args: Parameters<MemoryShardLeaseStore['renewAll']>) =>
        failing ? Promise.reject(new Error('Redis unavailable')) : leases.renewAll(...args),
    });
    const logger = new RecordingLogger();
    const keeper = await startCustom('worker-a', { store: flaky, logger });
    failing = true;
    await elapse(OPTIONS.leaseTtlMs / 4);
    failing = false;
    await elapse(OPTIONS.leaseTtlMs * 2);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect(ledger.calls.filter((call) => call.kind !== 'adopt')).toEqual([]);
    expect(logger.lines).toContainEqual({
      level: 'warn',
      details: { err: expect.any(Error) },
      message: 'shard lease renewal failed; retrying',
    });
  });

  it('takes its shards once the registry answers again, and says why it waited', async () => {
    let down = true;
    const flaky: WorkerRegistry = {
      heartbeat: (...args) =>
        down ? Promise.reject(new Error('Redis unavailable')) : registry.heartbeat(...args),
      leave: (workerId) => registry.leave(workerId),
      liveWorkers: () => registry.liveWorkers(),
    };
    const logger = new RecordingLogger();
    const keeper = await startCustom('worker-a', { workers: flaky, logger });
    expect(keeper.heldShards()).toEqual([]);
    expect(logger.lines).toContainEqual({
      level: 'warn',
      details: { err: expect.any(Error) },
      message: 'shard upkeep failed; retrying',
    });
    down = false;
    await eventually('every shard taken', () => keeper.heldShards().length === DEFAULT_SHARD_COUNT);
  });

  it('lets go of a shard its owner could not take over, and tries it again with a new grant', async () => {
    const shard = 9;
    let failures = 1;
    const inner = ledger.ownerFor('worker-a');
    const owner: ShardOwner = {
      ...inner,
      adopt: async (s, token, lease) => {
        if (s === shard && failures-- > 0) throw new Error('restore failed');
        await inner.adopt(s, token, lease);
      },
    };
    const logger = new RecordingLogger();
    const keeper = await startCustom('worker-a', { owner, logger });
    await eventually('the shard served after all', () => ledger.served('worker-a').includes(shard));
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect(ledger.lastToken('worker-a', shard)).toBe(2); // the failed grant (1) was released
    expect(logger.lines).toContainEqual({
      level: 'warn',
      details: { err: expect.any(Error), shard },
      message: 'could not take the shard over; will retry',
    });
  });

  it('warns once while take-overs keep failing, and again after one succeeded', async () => {
    // Issue 28: a NATS outage failed every shard's take-over every tick, hundreds of warnings a second.
    let failing = true;
    let shard9Failing = true;
    const inner = ledger.ownerFor('worker-a');
    const owner: ShardOwner = {
      ...inner,
      adopt: async (s, token, lease) => {
        if (failing || (s === 9 && shard9Failing)) throw new Error('bus unavailable');
        await inner.adopt(s, token, lease);
      },
    };
    const message = 'could not take the shard over; will retry';
    const failures = { warn: 0, debug: 0 };
    const logger: ShardKeeperLogger = {
      info: () => undefined,
      warn: (_details, line) => void (line === message && (failures.warn += 1)),
      debug: (_details, line) => void (line === message && (failures.debug += 1)),
    };
    const keeper = await startCustom('worker-a', { owner, logger });
    await eventually('every shard failed twice', () => failures.debug >= 2 * DEFAULT_SHARD_COUNT);
    expect(failures.warn).toBe(1);
    failing = false;
    // Shard 9 fails on after the others were taken over: a failure after a success, warned again.
    await eventually('a second warning', () => failures.warn === 2);
    await eventually('the others taken', () => ledger.served('worker-a').length === DEFAULT_SHARD_COUNT - 1);
    await elapse(300);
    expect(failures.warn).toBe(2);
    shard9Failing = false;
    await eventually('every shard served', () => ledger.served('worker-a').length === DEFAULT_SHARD_COUNT);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
  });

  it('logs how many shards it holds each time that changes, once per change', async () => {
    const logger = new RecordingLogger();
    await startCustom('worker-a', { logger });
    await elapse(200);
    const b = await startKeeper('worker-b');
    await eventually('a 32/32 split', () => b.heldShards().length === 32);
    await elapse(200);
    expect(
      logger.lines
        .filter((line) => line.message === 'shard ownership changed')
        .map((line) => (line.details as { shardsHeld: number }).shardsHeld),
    ).toEqual([64, 32]);
  });

  it('on stop, waits for adoptions under way before it answers', async () => {
    let finished = 0;
    const owner: ShardOwner = {
      adopt: async () => {
        await delay(1_000);
        finished += 1;
      },
      drop: async () => undefined,
    };
    const keeper = await startCustom('worker-a', { owner });
    keepers.splice(keepers.indexOf(keeper), 1);
    await settled(keeper.stop());
    expect(finished).toBe(DEFAULT_SHARD_COUNT);
    expect(await holders()).toEqual(ALL_SHARDS.map(() => null));
  });

  it('counts itself among the workers even while the registry does not list it yet', async () => {
    const lagging: WorkerRegistry = {
      heartbeat: (...args) => registry.heartbeat(...args),
      leave: (...args) => registry.leave(...args),
      liveWorkers: async () => [],
    };
    const keeper = await startCustom('worker-a', { workers: lagging });
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
  });

  it('frees every lease on stop even when its owner fails to drop a shard, and says which', async () => {
    const logger = new RecordingLogger();
    const owner: ShardOwner = {
      adopt: async () => undefined,
      drop: async (shard) => {
        if (shard === 3) throw new Error('sessions would not close');
      },
    };
    const keeper = await startCustom('worker-a', { owner, logger });
    keepers.splice(keepers.indexOf(keeper), 1);
    await settled(keeper.stop());
    expect(await holders()).toEqual(ALL_SHARDS.map(() => null));
    expect(logger.lines).toContainEqual({
      level: 'warn',
      details: { err: expect.any(Error), shard: 3 },
      message: 'dropping a shard failed',
    });
  });

  it('hands its shards over on stop even when its lease upkeep fails to stop', async () => {
    const upkeep = new InThreadLeaseUpkeep(leases);
    const failingToStop = Object.assign(Object.create(upkeep) as InThreadLeaseUpkeep, {
      stop: async () => {
        await upkeep.stop();
        throw new Error('upkeep thread did not answer');
      },
    });
    const logger = new RecordingLogger();
    const keeper = new ShardKeeper(
      'worker-a',
      leases,
      registry,
      ledger.ownerFor('worker-a'),
      logger,
      OPTIONS,
      failingToStop,
    );
    await keeper.start();
    await settled(keeper.stop());
    expect(await registry.liveWorkers()).toEqual([]);
    expect(await holders()).toEqual(ALL_SHARDS.map(() => null));
    expect(logger.lines).toContainEqual({
      level: 'warn',
      details: { err: expect.any(Error) },
      message: 'stopping lease upkeep failed',
    });
  });

  it('adopts nothing once stop was called, even a shard whose acquire was answered after it', async () => {
    // worker-x holds half the shards' assignment until its heartbeat lapses; then worker-a's
    // tick acquires the other half, and those acquires are held up until stop() has been called.
    await registry.heartbeat('worker-x', 500);
    let release: () => void = () => undefined;
    let gate: Promise<void> | null = null;
    const slowAcquire = Object.assign(Object.create(leases) as MemoryShardLeaseStore, {
      acquire: async (...args: Parameters<MemoryShardLeaseStore['acquire']>) => {
        if (gate) await gate;
        return leases.acquire(...args);
      },
    });
    const keeper = await startCustom('worker-a', { store: slowAcquire });
    expect(keeper.heldShards()).toHaveLength(32);
    gate = new Promise((resolve) => (release = resolve));
    await elapse(600); // worker-x is gone: the next tick asks for the other 32, and waits
    const adoptsBeforeStop = ledger.calls.filter((call) => call.kind === 'adopt').length;
    keepers.splice(keepers.indexOf(keeper), 1);
    const stopping = keeper.stop();
    gate = null;
    release();
    await settled(stopping);
    expect(ledger.calls.filter((call) => call.kind === 'adopt')).toHaveLength(adoptsBeforeStop);
    expect(keeper.heldShards()).toEqual([]);
    expect(await holders()).toEqual(ALL_SHARDS.map(() => null));
  });

  it('a failed adoption of an old grant leaves the newer grant of the shard alone', async () => {
    const shard = 9;
    const late = { fail: (): void => undefined };
    let first = true;
    const inner = ledger.ownerFor('worker-a');
    const owner: ShardOwner = {
      ...inner,
      adopt: async (s, token, lease) => {
        await inner.adopt(s, token, lease);
        if (s !== shard || !first) return;
        first = false;
        await new Promise<void>((resolve) => (late.fail = resolve));
        throw new Error('restore failed, late');
      },
    };
    const a = await startCustom('worker-a', { owner });
    const token = ledger.lastToken('worker-a', shard)!;
    // The first grant is lost while its adoption is still under way; the shard comes back later.
    await leases.release(shard, 'worker-a', token);
    await leases.acquire(shard, 'intruder', FOREIGN_LEASE_MS);
    await eventually(
      'the shard taken back under a new grant',
      () => (ledger.lastToken('worker-a', shard) ?? 0) > token && a.heldShards().includes(shard),
    );
    const newer = ledger.lastToken('worker-a', shard);
    const callsBefore = ledger.calls.length;

    late.fail();
    await elapse(OPTIONS.tickMs * 5);
    expect(ledger.calls.slice(callsBefore)).toEqual([]);
    expect(await leases.holder(shard)).toEqual({ workerId: 'worker-a', token: newer });
  });

  it('keeps one renewal in flight at a time, so a slow store is not flooded with them', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = Object.assign(Object.create(leases) as MemoryShardLeaseStore, {
      renewAll: async (...args: Parameters<MemoryShardLeaseStore['renewAll']>) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await delay(OPTIONS.tickMs * 5);
        inFlight -= 1;
        return leases.renewAll(...args);
      },
    });
    const keeper = await startCustom('worker-a', { store: slow });
    await elapse(1_000);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect(most).toBe(1);
  });
});
