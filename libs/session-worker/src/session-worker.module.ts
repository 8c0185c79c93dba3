import { NetworkCredentialStore, SendFailureRepository, SessionRepository } from '@jumbe/persistence';
import { ShardKeeper } from '@jumbe/coordination';
import type { Infrastructure } from '@jumbe/platform';
import {
  type BeforeApplicationShutdown,
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { InboundRelay } from './inbound-relay';
import { createNetworkDriver } from './network-driver-factory';
import { SessionCommandHandler } from './session-command-handler';
import { SessionHost } from './session-host';
import { WorkerShardOwner } from './worker-shard-owner';
import { newWorkerId } from './worker-identity';

const WORKER_INFRASTRUCTURE = Symbol('WORKER_INFRASTRUCTURE');

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
      sessions: new SessionRepository(dataSource),
      credentials: new NetworkCredentialStore(dataSource),
      failures: new SendFailureRepository(dataSource),
      inbound: new InboundRelay(infrastructure.events),
      logger,
    },
  );
  const workerId = newWorkerId();
  return new ShardKeeper(
    workerId,
    infrastructure.ownership('session-worker').leases,
    infrastructure.ownership('session-worker').registry,
    new WorkerShardOwner(infrastructure.bus, host, new SessionCommandHandler(host, logger)),
    logger.child({ workerId }),
  );
}

/** Starts taking shards when the app is up; hands them over before it stops (SIGTERM). */
@Injectable()
class SessionWorkerLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(ShardKeeper) private readonly keeper: ShardKeeper) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.keeper.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.keeper.stop();
  }
}

/** The session worker: owns a share of the sessions and carries out commands on them. */
@Module({})
export class SessionWorkerModule {
  static register(infrastructure: Infrastructure): DynamicModule {
    return {
      module: SessionWorkerModule,
      providers: [
        { provide: WORKER_INFRASTRUCTURE, useValue: infrastructure },
        { provide: ShardKeeper, useFactory: createShardKeeper, inject: [WORKER_INFRASTRUCTURE] },
        SessionWorkerLifecycle,
      ],
      exports: [ShardKeeper],
    };
  }
}
