import { DISPATCH_QUEUE, DISPATCH_SUBJECT } from '@jumbe/contracts';
import { DEFAULT_SHARD_KEEPER_OPTIONS, newMemberId, ShardKeeper } from '@jumbe/coordination';
import { SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
import type { BusSubscription } from '@jumbe/messaging';
import { WebhookDeliveryRepository, WebhookRepository } from '@jumbe/persistence';
import { type Infrastructure, ManagedWork } from '@jumbe/platform';
import {
  observeConsumerPending,
  observeLeaseLosses,
  observeShardOwner,
  observeWebhookPoster,
} from '@jumbe/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { DispatchCommandHandler } from './dispatch-command-handler';
import { DispatcherShardOwner } from './dispatcher-shard-owner';
import { EventDispatcher } from './event-dispatcher';
import { WebhookDirectory } from './webhook-directory';
import { WebhookPoster } from './webhook-poster';

/** The dispatcher's parts, wired from the infrastructure. */
class WebhookDispatcherService {
  private readonly directory: WebhookDirectory;
  private readonly dispatcher: EventDispatcher;
  private readonly keeper: ShardKeeper;
  private readonly commands: DispatchCommandHandler;
  private subscription: BusSubscription | null = null;

  constructor(private readonly infrastructure: Infrastructure) {
    const { dataSource, logger, config } = infrastructure;
    const deliveries = new WebhookDeliveryRepository(dataSource);
    const poster = observeWebhookPoster(new WebhookPoster(config.allowPrivateNetworks));
    this.directory = new WebhookDirectory(
      new WebhookRepository(dataSource),
      new SecretBox(infrastructure.secretKey, SECRET_PURPOSES.webhookSigningSecret),
      infrastructure.invalidations,
    );
    this.dispatcher = new EventDispatcher(this.directory, poster, deliveries, logger);
    this.commands = new DispatchCommandHandler(this.directory, poster, deliveries, logger);
    observeConsumerPending(infrastructure.eventSource);
    const ownership = infrastructure.ownership('webhook-dispatcher');
    const dispatcherId = newMemberId();
    this.keeper = new ShardKeeper(
      dispatcherId,
      observeLeaseLosses('webhook-dispatcher', ownership.leases),
      ownership.registry,
      observeShardOwner(
        'webhook-dispatcher',
        new DispatcherShardOwner(infrastructure.eventSource, this.dispatcher),
      ),
      logger.child({ dispatcherId }),
      DEFAULT_SHARD_KEEPER_OPTIONS,
    );
  }

  async start(): Promise<void> {
    await this.directory.start();
    this.subscription = await this.infrastructure.bus.serve(
      DISPATCH_SUBJECT,
      (payload) => this.commands.handle(payload),
      {
        queue: DISPATCH_QUEUE,
      },
    );
    await this.keeper.start();
  }

  async stop(): Promise<void> {
    await this.subscription?.unsubscribe();
    await this.keeper.stop();
    this.dispatcher.stop();
  }
}

/** The webhook dispatcher: consumes its shards' events and delivers them, signed, once each. */
@Module({})
export class WebhookDispatcherModule {
  static register(infrastructure: Infrastructure): DynamicModule {
    return {
      module: WebhookDispatcherModule,
      providers: [
        {
          provide: ManagedWork,
          useFactory: () => new ManagedWork(new WebhookDispatcherService(infrastructure)),
        },
      ],
    };
  }
}
