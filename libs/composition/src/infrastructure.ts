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
 * The connected adapters a service runs on. The same interface is filled with real servers in
 * production and with embedded / in-process twins in the all-in-one mode; services never know
 * which.
 */
export interface Infrastructure {
  config: JumbeConfig;
  logger: Logger;
  version: string;
  startedAt: Date;
  dataSource: DataSource;
  bus: MessageBus;
  usageStore: UsageCounterStore;
  invalidations: InvalidationBus;
  rateLimiter: RateLimiter;
  coordinationHealth: CoordinationHealth;
  /** Shard leases and the member registry of one kind of shard owner. */
  ownership(role: OwnershipRole): Ownership;
  /** The durable stream inbound events go to (JetStream, or a PostgreSQL-backed log all-in-one)... */
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
  /** The key that encrypts secrets at rest (from JUMBE_SECRET_KEY or generated into the data dir). */
  secretKey: string;
  /** Closes everything, in reverse order of opening. */
  close(): Promise<void>;
}
