import { DEFAULT_SHARD_COUNT } from '@jumbe/domain';
import { TcpProxy } from '@jumbe/testing';
import type Redis from 'ioredis';
import { redisClientOptions } from '../redis-client';
import {
  delay,
  eventually,
  RedisTestClients,
  serverClientId,
  TEST_REDIS_URL,
  uniqueClientName,
} from '../test-support/redis-test-clients';
import { RedisShardLeaseStore, shardLeaseKey } from './redis-shard-lease-store';
import { RedisWorkerRegistry } from './redis-worker-registry';
import {
  ShardKeeper,
  type ShardKeeperLogger,
  type ShardKeeperOptions,
  type ShardLease,
  type ShardOwner,
} from './shard-keeper';
import { RedisTestKeySpaces } from './test-support/redis-test-key-spaces';
import { ThreadedLeaseUpkeep } from './threaded-lease-upkeep';

/**
 * A 4 s lease renewed every 250 ms; the keeper's guard drops a shard not renewed for 3 s, which
 * leaves room for a reconnection (ioredis' backoff reaches 2 s) on a loaded machine. The heartbeat
 * TTL is short, so a member whose heartbeat stops drops out of the registry quickly.
 */
const OPTIONS: ShardKeeperOptions = { tickMs: 250, leaseTtlMs: 4_000, heartbeatTtlMs: 2_000 };
const ALL_SHARDS = Array.from({ length: DEFAULT_SHARD_COUNT }, (_, shard) => shard);
/** Long enough that a lease taken by the intruder outlives each test. */
const INTRUDER_LEASE_MS = 60_000;

/** Holds the main thread without yielding, as a CPU-starved or busy process does. */
function blockMainThread(ms: number): void {
  const until = Date.now() + ms;
  let spins = 0;
  while (Date.now() < until) spins += 1;
  if (spins < 0) throw new Error('unreachable');
}

interface OwnerCall {
  kind: 'adopt' | 'drop';
  shard: number;
  at: number;
}

class RecordingOwner implements ShardOwner {
  readonly calls: OwnerCall[] = [];
  /** The lease each shard was last adopted with. */
  readonly leases = new Map<number, ShardLease | undefined>();

  async adopt(shard: number, _token: number, lease?: ShardLease): Promise<void> {
    this.calls.push({ kind: 'adopt', shard, at: Date.now() });
    this.leases.set(shard, lease);
  }

  async drop(shard: number): Promise<void> {
    this.calls.push({ kind: 'drop', shard, at: Date.now() });
  }

  count(kind: OwnerCall['kind']): number {
    return this.calls.filter((call) => call.kind === kind).length;
  }
}

class RecordingLogger implements ShardKeeperLogger {
  readonly warnings: string[] = [];
  readonly info = (): void => undefined;
  readonly debug = (): void => undefined;
  warn(_details: object, message: string): void {
    this.warnings.push(message);
  }
}

describe('ShardKeeper with its leases renewed on a thread of their own (real Redis)', () => {
  const clients = new RedisTestClients();
  const keySpaces = new RedisTestKeySpaces();
  const keepers: ShardKeeper[] = [];
  const proxies: TcpProxy[] = [];
  let redis: Redis;
  let intruderClient: Redis;
  let prefix: string;
  /** Another member: its own connection, the same keys. */
  let intruder: RedisShardLeaseStore;

  beforeAll(async () => {
    redis = await clients.connect('upkeep-spec');
    intruderClient = await clients.connect('upkeep-intruder');
  });
  beforeEach(() => {
    prefix = keySpaces.next();
    intruder = new RedisShardLeaseStore(intruderClient, prefix);
  });
  afterEach(async () => {
    await Promise.all(keepers.splice(0).map((keeper) => keeper.stop()));
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });
  afterAll(async () => {
    await keySpaces.deleteAll(redis);
    await clients.closeAll();
  });

  interface Started {
    keeper: ShardKeeper;
    owner: RecordingOwner;
    logger: RecordingLogger;
    upkeepClientName: string;
  }

  async function startKeeper(
    memberId: string,
    { url = TEST_REDIS_URL, client = redis, stallLimitMs = 30_000 } = {},
  ): Promise<Started> {
    const owner = new RecordingOwner();
    const logger = new RecordingLogger();
    const upkeepClientName = uniqueClientName('upkeep-thread');
    const keeper = new ShardKeeper(
      memberId,
      new RedisShardLeaseStore(client, prefix),
      new RedisWorkerRegistry(client, prefix),
      owner,
      logger,
      OPTIONS,
      new ThreadedLeaseUpkeep({
        redisUrl: url,
        redisOptions: redisClientOptions(upkeepClientName),
        keyPrefix: prefix,
        stallLimitMs,
      }),
    );
    keepers.push(keeper);
    await keeper.start();
    await eventually('every shard held', () => keeper.heldShards().length === DEFAULT_SHARD_COUNT);
    return { keeper, owner, logger, upkeepClientName };
  }

  /** Sent before anything else of this process can run: the main thread yields only at the await. */
  function acquireAllAsIntruder(): Promise<Array<number | null>> {
    return Promise.all(ALL_SHARDS.map((shard) => intruder.acquire(shard, 'intruder', INTRUDER_LEASE_MS)));
  }

  it('keeps every lease, and its membership, while its main thread is blocked for 3x the lease time', async () => {
    const { keeper, owner, logger } = await startKeeper('worker-busy');
    const registry = new RedisWorkerRegistry(redis, prefix);

    blockMainThread(OPTIONS.leaseTtlMs * 3);
    // The keeper's own timers have not run since the block began; only the thread renewed.
    const [taken, live] = await Promise.all([acquireAllAsIntruder(), registry.liveWorkers()]);

    expect(taken.filter((token) => token !== null)).toEqual([]);
    expect(live).toEqual(['worker-busy']);
    // And the keeper, running again, finds every lease fresh: nothing dropped, nothing adopted twice.
    await delay(OPTIONS.leaseTtlMs);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
    expect(owner.count('drop')).toBe(0);
    expect(owner.count('adopt')).toBe(DEFAULT_SHARD_COUNT);
    // Said once, so that operators know why the process answered nothing meanwhile.
    expect(logger.warnings.filter((line) => line.startsWith('main thread stalled'))).toHaveLength(1);
  }, 45_000);

  it('lets its leases expire, to be taken by another member, once its main thread is blocked past the stall limit', async () => {
    const stallLimitMs = 1_000;
    const { keeper, owner, logger } = await startKeeper('worker-wedged', { stallLimitMs });
    const registry = new RedisWorkerRegistry(redis, prefix);
    const before = await Promise.all(ALL_SHARDS.map((shard) => intruder.holder(shard)));

    // Past the stall limit, then past one more lease time (and a renewal interval) for the last renewal to lapse.
    blockMainThread(stallLimitMs + OPTIONS.leaseTtlMs + 1_000);
    const [taken, live] = await Promise.all([acquireAllAsIntruder(), registry.liveWorkers()]);

    expect(taken.every((token, shard) => token !== null && token > before[shard]!.token)).toBe(true);
    expect(live).toEqual([]);
    // The keeper, running again, stops serving every shard and cannot take them back.
    await eventually('every shard dropped', () => owner.count('drop') === DEFAULT_SHARD_COUNT);
    await delay(OPTIONS.tickMs * 3);
    expect(keeper.heldShards()).toEqual([]);
    expect(logger.warnings).toContain(
      'main thread unresponsive past the stall limit: lease renewal paused, shards will go to other members',
    );
  }, 45_000);

  // Issue 28: after a stall, a session's due backoff timer runs before the keeper's guard has
  // dropped anything; what it asks must already say the lease is gone, by the clock.
  it('tells the owner its lease is no longer valid as soon as the main thread runs again after a stall past the lease, before any timer', async () => {
    const stallLimitMs = 1_000;
    const { owner } = await startKeeper('worker-stalled', { stallLimitMs });
    const lease = owner.leases.get(17);
    expect(lease?.valid()).toBe(true);

    blockMainThread(stallLimitMs + OPTIONS.leaseTtlMs + 1_000);
    // Synchronously after the stall: no timer of the keeper (its guard) has run.
    const validAfterStall = lease?.valid();
    expect(owner.count('drop')).toBe(0);
    expect(validAfterStall).toBe(false);
    await eventually('every shard dropped', () => owner.count('drop') === DEFAULT_SHARD_COUNT);
  }, 45_000);

  it('drops a shard whose lease another member took behind its back, and only that one', async () => {
    const { keeper, owner } = await startKeeper('worker-a');
    const shard = 17;
    const token = (await intruder.holder(shard))!.token;
    await intruder.release(shard, 'worker-a', token);
    const intruderToken = await intruder.acquire(shard, 'intruder', INTRUDER_LEASE_MS);

    await eventually('the shard to be dropped', () => !keeper.heldShards().includes(shard));
    expect(owner.calls.filter((call) => call.kind === 'drop').map((call) => call.shard)).toEqual([shard]);
    expect(await intruder.holder(shard)).toEqual({ workerId: 'intruder', token: intruderToken });
    await delay(OPTIONS.leaseTtlMs);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS.filter((other) => other !== shard));
  }, 45_000);

  it('stops its thread and the thread’s connection with the keeper, leaving nothing held', async () => {
    const { keeper, upkeepClientName } = await startKeeper('worker-leaving');
    await expect(serverClientId(redis, upkeepClientName)).resolves.toEqual(expect.any(String));

    await keeper.stop();
    keepers.splice(keepers.indexOf(keeper), 1);

    await expect(serverClientId(redis, upkeepClientName)).rejects.toThrow(/no Redis connection/);
    expect(await new RedisWorkerRegistry(redis, prefix).liveWorkers()).toEqual([]);
    // Nothing renews or re-registers afterwards.
    await delay(OPTIONS.leaseTtlMs / 2);
    expect(await Promise.all(ALL_SHARDS.map((shard) => intruder.holder(shard)))).toEqual(
      ALL_SHARDS.map(() => null),
    );
    expect(await new RedisWorkerRegistry(redis, prefix).liveWorkers()).toEqual([]);
  }, 45_000);

  it('while Redis is gone, drops every shard before its lease can expire, and takes them all back when it returns', async () => {
    const proxy = await TcpProxy.inFrontOf(TEST_REDIS_URL);
    proxies.push(proxy);
    const url = proxy.rewrite(TEST_REDIS_URL);
    const client = await clients.connect('upkeep-proxied', url);
    const { keeper, owner } = await startKeeper('worker-cut-off', { url, client });

    // When the first lease can expire in Redis, once nothing renews them any more.
    const readAt = Date.now();
    const remaining = await Promise.all(ALL_SHARDS.map((shard) => redis.pttl(shardLeaseKey(shard, prefix))));
    expect(remaining.every((ms) => ms > 0)).toBe(true);
    const firstExpiry = readAt + Math.min(...remaining);
    await proxy.cut();

    await eventually('every shard dropped', () => owner.count('drop') === DEFAULT_SHARD_COUNT, 10_000);
    // No shard served past its lease: each was given up before any lease could expire.
    const lastDrop = Math.max(...owner.calls.filter((call) => call.kind === 'drop').map((call) => call.at));
    expect(lastDrop).toBeLessThan(firstExpiry);

    await proxy.restore();
    await eventually(
      'every shard held again',
      () => keeper.heldShards().length === DEFAULT_SHARD_COUNT,
      15_000,
    );
    const dropsAfterRecovery = owner.count('drop');
    await delay(OPTIONS.leaseTtlMs * 2);
    // Renewed from the thread's reconnected connection: nothing lapses any more.
    expect(owner.count('drop')).toBe(dropsAfterRecovery);
    expect(keeper.heldShards()).toEqual(ALL_SHARDS);
  }, 45_000);
});
