import type { JumbeConfig } from '@jumbe/config';
import type {
  CoordinationHealth,
  InvalidationBus,
  RateLimiter,
  ShardLeaseStore,
  UsageCounterStore,
  WorkerRegistry,
} from '@jumbe/coordination';
import type { EventPublisher, InProcessEventLog, MessageBus } from '@jumbe/messaging';
import type { SandboxStore } from '@jumbe/network';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';

export type DependencyName = 'database' | 'bus' | 'coordination';

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
  shardLeases: ShardLeaseStore;
  workerRegistry: WorkerRegistry;
  /** The durable stream inbound events go to (JetStream, or the in-process log all-in-one). */
  events: EventPublisher;
  /** Set in the all-in-one mode without NATS: the in-process dispatcher listens to it. */
  inProcessEvents: InProcessEventLog | null;
  /** Where the sandbox network keeps its state, shared by every worker of a deployment. */
  sandboxStore: SandboxStore;
  /** The key that encrypts secrets at rest (from JUMBE_SECRET_KEY or generated into the data dir). */
  secretKey: string;
  /** Closes everything, in reverse order of opening. */
  close(): Promise<void>;
}
