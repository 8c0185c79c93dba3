import type { JumbeConfig } from '@jumbe/config';
import type {
  CoordinationHealth,
  InvalidationBus,
  LeaseUpkeep,
  RateLimiter,
  ShardLeaseStore,
  UsageCounterStore,
  WorkerRegistry,
} from '@jumbe/coordination';
import type {
  EventPublisher,
  EventSource,
  LiveEventLog,
  MediaObjectStore,
  MessageBus,
} from '@jumbe/messaging';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';

/** Session workers and webhook dispatchers each spread the shards over their own members. */
export type OwnershipRole = 'session-worker' | 'webhook-dispatcher';

export interface Ownership {
  leases: ShardLeaseStore;
  registry: WorkerRegistry;
  /** A new lease upkeep for one shard keeper: on a thread of its own for Redis, in-thread in memory. */
  upkeep(): LeaseUpkeep;
}

/**
 * What every process opens: the database, the bus, the invalidation bus and what its health check
 * probes. The same interface is filled with real servers in production and with embedded /
 * in-process twins in the all-in-one mode; services never know which.
 */
export interface CoreInfrastructure {
  config: JumbeConfig;
  logger: Logger;
  version: string;
  startedAt: Date;
  dataSource: DataSource;
  bus: MessageBus;
  invalidations: InvalidationBus;
  coordinationHealth: CoordinationHealth;
  /** The key that encrypts secrets at rest (from JUMBE_SECRET_KEY or generated into the data dir). */
  secretKey: string;
  /** Closes everything, in reverse order of opening. */
  close(): Promise<void>;
}

/** What a process opens only when its composition root asks for it (INFRASTRUCTURE_PARTS). */
export interface OptionalInfrastructure {
  /** The API's usage counters (quota). */
  usageStore: UsageCounterStore;
  rateLimiter: RateLimiter;
  /** Shard leases and the member registry of one kind of shard owner. */
  ownership(role: OwnershipRole): Ownership;
  /**
   * The durable stream inbound events go to (JetStream, ensured when asked for, or a
   * PostgreSQL-backed log all-in-one)...
   */
  events: EventPublisher;
  /** ...and where the dispatcher that owns a shard takes them from. */
  eventSource: EventSource;
  /**
   * The events kept for live subscribers (`GET /api/v1/events`): a JetStream stream the gateways
   * copy events into, or the last events in memory (all-in-one without NATS). Started by the gateway.
   */
  liveEvents: LiveEventLog;
  /**
   * Received media files on their way from a worker to a gateway: JetStream's Object Store when
   * NATS is configured, else a folder of the data dir (all-in-one).
   */
  media: MediaObjectStore;
  /**
   * Files customers upload to send, from the gateway to the worker (UPLOAD_OBJECT_TTL_MS): another
   * bucket of the same Object Store, or another folder of the data dir.
   */
  uploads: MediaObjectStore;
  /**
   * The request path's Redis connection (null without Redis, in the all-in-one mode), for a
   * service's own Redis stores, such as the sandbox network's state that every worker of a
   * deployment shares. Its commands are auto-pipelined: stores on it use no `multi()` or
   * `pipeline()` (createRedisClient says why).
   */
  redis: Redis | null;
}

export type InfrastructurePart = keyof OptionalInfrastructure;

/** Each optional part, once: a part added above and not here does not compile. */
const EVERY_PART: Record<InfrastructurePart, true> = {
  usageStore: true,
  rateLimiter: true,
  ownership: true,
  events: true,
  eventSource: true,
  liveEvents: true,
  media: true,
  uploads: true,
  redis: true,
};

/** Every optional part: what the all-in-one, which runs every service, asks for. */
export const INFRASTRUCTURE_PARTS = Object.keys(EVERY_PART) as InfrastructurePart[];

/**
 * The connected adapters a process runs on: the core, and the parts `P` its composition root
 * asked for (all of them by default). A service's bindings take the parts they use, so a process
 * that does not ask for one cannot bind a service that needs it.
 */
export type Infrastructure<P extends InfrastructurePart = InfrastructurePart> = CoreInfrastructure &
  Pick<OptionalInfrastructure, P>;
