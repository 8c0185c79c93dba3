// One process of the `shards` simulation (bench/shards.bench.mjs forks several): runs
// BENCH_FLEET_KEEPERS shard keepers, each with its own Redis connection as a separate worker
// process would have, against the real Redis, with owners that do no work. Reports to the parent
// every 200 ms: each keeper's shards, the Redis commands its connections sent, and its CPU time.
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const {
  createRedisClient,
  waitForRedisReady,
  closeRedisClient,
  RedisShardLeaseStore,
  RedisWorkerRegistry,
  ShardKeeper,
  DEFAULT_SHARD_KEEPER_OPTIONS,
} = require(join(root, 'dist/libs/coordination/src/index.js'));

const env = process.env;
const redisUrl = env.BENCH_FLEET_REDIS_URL;
const keyPrefix = env.BENCH_FLEET_KEY_PREFIX;
const shardCount = Number(env.BENCH_FLEET_SHARDS);
const keeperCount = Number(env.BENCH_FLEET_KEEPERS);
const name = env.BENCH_FLEET_NAME;

const silent = { info: () => undefined, warn: () => undefined, debug: () => undefined };
const idleOwner = { adopt: async () => undefined, drop: async () => undefined };
/** Commands sent by this process's connections, by name (pipelined ones included). */
const sent = {};

function countCommands(redis) {
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, ...rest) => {
    sent[command.name] = (sent[command.name] ?? 0) + 1;
    return send(command, ...rest);
  };
}

const members = await Promise.all(
  Array.from({ length: keeperCount }, async (_, i) => {
    const workerId = `${name}-k${i}`;
    const redis = createRedisClient(redisUrl, `bench-shards-${workerId}`);
    await waitForRedisReady(redis, 10_000);
    countCommands(redis);
    const keeper = new ShardKeeper(
      workerId,
      new RedisShardLeaseStore(redis, keyPrefix),
      new RedisWorkerRegistry(redis, keyPrefix),
      idleOwner,
      silent,
      { ...DEFAULT_SHARD_KEEPER_OPTIONS, shardCount },
    );
    return { workerId, redis, keeper };
  }),
);
await Promise.all(members.map(({ keeper }) => keeper.start()));

const report = () =>
  process.send?.({
    type: 'report',
    name,
    keepers: members.map(({ workerId, keeper }) => ({ workerId, held: keeper.heldShards() })),
    sent,
    cpu: process.cpuUsage(),
  });
report();
const reporter = setInterval(report, 200);

process.on('message', async (message) => {
  if (message?.type !== 'stop') return;
  clearInterval(reporter);
  await Promise.all(members.map(({ keeper }) => keeper.stop()));
  await Promise.all(members.map(({ redis }) => closeRedisClient(redis)));
  process.exit(0);
});
