import { shardOf } from '@jumbe/domain';
import { SandboxNetworkDriver, type SandboxStore } from '@jumbe/network';
import { NetworkCredentialStore, SessionRepository } from '@jumbe/persistence';
import { observeNetworkDriver } from '@jumbe/telemetry';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { InboundRelay } from '../inbound-relay';
import { StatusRelay } from '../status-relay';
import { DEFAULT_SESSION_HOST_OPTIONS, SessionHost, type SessionHostOptions } from '../session-host';
import { RecordingPublisher } from './recording-publisher';

/** One session worker as session-worker.module.ts wires it, on the sandbox network. */
export interface TestWorker {
  host: SessionHost;
  driver: SandboxNetworkDriver;
  publisher: RecordingPublisher;
  /** Adopts the shard and remembers it, so `dropAll` can close its sessions after the test. */
  adopt(shard: number, token: number): Promise<void>;
  dropAll(): Promise<void>;
}

export function startTestWorker(
  dataSource: DataSource,
  store: SandboxStore,
  options: Partial<SessionHostOptions> = {},
): TestWorker {
  // Behind the tracing wrapper, as sessionWorkerBindings composes it: sessions are used through it.
  const driver = observeNetworkDriver(
    new SandboxNetworkDriver(store, { reconnectDelayMs: 20, redeliveryIntervalMs: 50 }),
  );
  const publisher = new RecordingPublisher();
  const host = new SessionHost(
    driver,
    {
      sessions: new SessionRepository(dataSource),
      credentials: new NetworkCredentialStore(dataSource),
      inbound: new InboundRelay(publisher),
      statuses: new StatusRelay(publisher),
      logger: pino({ level: 'silent' }),
    },
    { ...DEFAULT_SESSION_HOST_OPTIONS, ...options },
  );
  const adopted = new Set<number>();
  return {
    host,
    driver,
    publisher,
    adopt: async (shard, token) => {
      adopted.add(shard);
      await host.adoptShard(shard, token);
    },
    dropAll: async () => {
      for (const shard of adopted) if (host.ownsShard(shard)) await host.dropShard(shard);
    },
  };
}

/**
 * A session id of `accountId` whose shard no earlier call returned: tests that adopt a shard then
 * restore only their own sessions, although they share one database.
 */
export function sessionInUnusedShard(
  accountId: string,
  used: Set<number>,
): { sessionId: string; shard: number } {
  for (let n = 0; ; n++) {
    const sessionId = `session-${n}`;
    const shard = shardOf(accountId, sessionId);
    if (!used.has(shard)) {
      used.add(shard);
      return { sessionId, shard };
    }
  }
}
