import { DEFAULT_SHARD_KEEPER_OPTIONS, newMemberId, ShardKeeper } from '@jumbe/coordination';
import { ManagedWork } from '@jumbe/platform';
import { observeInboundPublisher, observeShardOwner, telemetry } from '@jumbe/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { MEDIA_DOWNLOAD_TIMEOUT_MS } from '@jumbe/contracts';
import { InboundRelay } from './inbound-relay';
import { MediaFetcher } from './media-fetcher';
import type { SessionWorkerPorts } from './ports/session-worker-ports';
import { RetentionSweep } from './retention-sweep';
import { SessionCommandHandler } from './session-command-handler';
import { DEFAULT_SESSION_HOST_OPTIONS, SessionHost } from './session-host';
import { StatusRelay } from './status-relay';
import { SubscriptionFilter } from './subscription-filter';
import { WorkerShardOwner } from './worker-shard-owner';

const SESSION_WORKER_PORTS = Symbol('SESSION_WORKER_PORTS');

function createShardKeeper(ports: SessionWorkerPorts, wanted: SubscriptionFilter): ShardKeeper {
  const { config, logger } = ports;
  const host = new SessionHost(
    ports.driver,
    {
      sessions: ports.sessions,
      credentials: ports.credentials,
      inbound: new InboundRelay(observeInboundPublisher(ports.events)),
      statuses: new StatusRelay(ports.events, wanted),
      logger,
      callSettings: ports.callSettings,
    },
    {
      restoreConcurrency: config.restoreConcurrency,
      // Well inside the gateway's own wait, so the client gets session_restoring, not a timeout.
      restoreWaitMs: Math.min(5_000, config.commandTimeoutMs / 2),
      quietReconnectMs: DEFAULT_SESSION_HOST_OPTIONS.quietReconnectMs,
      restoreRetryMs: DEFAULT_SESSION_HOST_OPTIONS.restoreRetryMs,
    },
    new MediaFetcher(
      ports.driver,
      ports.media,
      {
        maxBytes: config.mediaMaxBytes,
        concurrency: config.mediaDownloads,
        timeoutMs: MEDIA_DOWNLOAD_TIMEOUT_MS,
      },
      logger,
    ),
  );
  telemetry().watchSessions(() => host.countByState());
  const workerId = newMemberId();
  return new ShardKeeper(
    workerId,
    ports.leases,
    ports.registry,
    observeShardOwner(
      'session-worker',
      new WorkerShardOwner(ports.bus, host, new SessionCommandHandler(host, logger)),
    ),
    logger.child({ workerId }),
    DEFAULT_SHARD_KEEPER_OPTIONS,
    ports.leaseUpkeep(),
  );
}

/** The session worker: owns a share of the sessions and carries out commands on them. */
@Module({})
export class SessionWorkerModule {
  static register(ports: SessionWorkerPorts): DynamicModule {
    return {
      module: SessionWorkerModule,
      // Takes its shards once the app is up; hands them over before it stops (SIGTERM).
      providers: [
        { provide: SESSION_WORKER_PORTS, useValue: ports },
        {
          provide: ManagedWork,
          useFactory: (bound: SessionWorkerPorts) => {
            const wanted = new SubscriptionFilter(bound.subscriptions, bound.invalidations);
            const keeper = createShardKeeper(bound, wanted);
            const retention = new RetentionSweep(bound.expiredMessages, bound.logger);
            // Invalidations are heard before the first session is restored.
            return new ManagedWork({
              start: async () => {
                await wanted.start();
                await keeper.start();
                retention.start();
              },
              stop: async () => {
                await Promise.all([keeper.stop(), retention.stop()]);
              },
            });
          },
          inject: [SESSION_WORKER_PORTS],
        },
      ],
    };
  }
}
