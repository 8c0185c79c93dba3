import { BatchedSessionRepository, NetworkCredentialStore, SendFailureRepository } from '@jumbe/persistence';
import { newMemberId, ShardKeeper } from '@jumbe/coordination';
import { type Infrastructure, ManagedWork } from '@jumbe/platform';
import { observeInboundPublisher, observeLeaseLosses, observeShardOwner, telemetry } from '@jumbe/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { InboundRelay } from './inbound-relay';
import { createNetworkDriver } from './network-driver-factory';
import { SessionCommandHandler } from './session-command-handler';
import { SessionHost } from './session-host';
import { WorkerShardOwner } from './worker-shard-owner';

function createShardKeeper(infrastructure: Infrastructure): ShardKeeper {
  const { dataSource, logger } = infrastructure;
  const host = new SessionHost(
    createNetworkDriver(infrastructure.config, {
      sandboxStore: infrastructure.sandboxStore,
      dataSource,
      secretKey: infrastructure.secretKey,
      logger,
    }),
    {
      // State writes of many sessions at once (a restore) go out together.
      sessions: new BatchedSessionRepository(dataSource),
      credentials: new NetworkCredentialStore(dataSource),
      failures: new SendFailureRepository(dataSource),
      inbound: new InboundRelay(observeInboundPublisher(infrastructure.events)),
      logger,
    },
    {
      restoreConcurrency: infrastructure.config.restoreConcurrency,
      // Well inside the gateway's own wait, so the client gets session_restoring, not a timeout.
      restoreWaitMs: Math.min(5_000, infrastructure.config.commandTimeoutMs / 2),
    },
  );
  telemetry().watchSessions(() => host.countByState());
  const workerId = newMemberId();
  return new ShardKeeper(
    workerId,
    observeLeaseLosses('session-worker', infrastructure.ownership('session-worker').leases),
    infrastructure.ownership('session-worker').registry,
    observeShardOwner(
      'session-worker',
      new WorkerShardOwner(infrastructure.bus, host, new SessionCommandHandler(host, logger)),
    ),
    logger.child({ workerId }),
  );
}

/** The session worker: owns a share of the sessions and carries out commands on them. */
@Module({})
export class SessionWorkerModule {
  static register(infrastructure: Infrastructure): DynamicModule {
    return {
      module: SessionWorkerModule,
      // Takes its shards once the app is up; hands them over before it stops (SIGTERM).
      providers: [
        { provide: ManagedWork, useFactory: () => new ManagedWork(createShardKeeper(infrastructure)) },
      ],
    };
  }
}
