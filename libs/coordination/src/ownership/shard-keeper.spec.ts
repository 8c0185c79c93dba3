import { DEFAULT_SHARD_COUNT } from '@jumbe/domain';
import { MemoryShardLeaseStore } from './memory-shard-lease-store';
import { MemoryWorkerRegistry } from './memory-worker-registry';
import {
  ShardKeeper,
  type ShardKeeperLogger,
  type ShardKeeperOptions,
  type ShardOwner,
} from './shard-keeper';

/**
 * Fast ticks and heartbeats. The keeper's own lease stays above the keeper's fixed local safety
 * margin (LEASE_SAFETY_MARGIN_MS, 1.5 s); leases held by the simulated other workers are short.
 */
const OPTIONS: ShardKeeperOptions = { tickMs: 20, leaseTtlMs: 2_000, heartbeatTtlMs: 200 };
const FOREIGN_LEASE_MS = 300;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(10);
  }
}

const silent: ShardKeeperLogger = { info: () => undefined, warn: () => undefined, debug: () => undefined };

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
    leases = new MemoryShardLeaseStore();
    registry = new MemoryWorkerRegistry();
    ledger = new OwnershipLedger();
  });
  afterEach(async () => {
    await Promise.all(keepers.splice(0).map((keeper) => keeper.stop()));
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
    await delay(1_000);
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
    await delay(OPTIONS.tickMs * 10);
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

    await b.stop();
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
    const a = await startKeeper('worker-a');
    const shard = 17;
    const token = ledger.lastToken('worker-a', shard)!;

    // Simulate losing the lease behind the keeper's back (expired during a pause, taken by another).
    await leases.release(shard, 'worker-a', token);
    const intruderToken = await leases.acquire(shard, 'intruder', FOREIGN_LEASE_MS);
    expect(intruderToken).toBeGreaterThan(token);

    await eventually('the shard to be dropped', () => !ledger.served('worker-a').includes(shard));
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

    await delay(1_000);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect(ledger.calls.filter((call) => call.kind === 'drop')).toHaveLength(0);
    expect(ledger.calls.filter((call) => call.kind === 'adopt')).toHaveLength(DEFAULT_SHARD_COUNT);
  });

  it('keeps every lease while its owner takes 3x the lease time to adopt, renewing all in one call', async () => {
    // Restoring thousands of sessions can take longer than a lease: upkeep must not wait for it.
    const lease: ShardKeeperOptions = { tickMs: 20, leaseTtlMs: 400, heartbeatTtlMs: 200 };
    const adoptMs = lease.leaseTtlMs * 3;
    const calls: string[] = [];
    const slowOwner: ShardOwner = {
      adopt: async (shard) => {
        calls.push(`adopt:${shard}`);
        await delay(adoptMs);
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
    const started = Date.now();
    await keeper.start();
    expect(Date.now() - started).toBeLessThan(adoptMs); // start() does not wait for adoption either.

    await delay(adoptMs + lease.leaseTtlMs);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect(calls.filter((call) => call.startsWith('drop'))).toEqual([]);
    expect(calls.filter((call) => call.startsWith('adopt'))).toHaveLength(DEFAULT_SHARD_COUNT);
    expect(
      (await holders()).every((holder) => holder?.workerId === 'worker-slow' && holder.token === 1),
    ).toBe(true);
    // One round trip per renewal, for all 64 leases: far fewer calls than leases x renewals.
    expect(renewAllCalls).toBeGreaterThan(5);
    expect(renewAllCalls).toBeLessThan((adoptMs + lease.leaseTtlMs) / 10);
  });
});
