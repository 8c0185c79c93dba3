import { DISPATCH_QUEUE, DISPATCH_SUBJECT } from '@jumbe/contracts';
import { DEFAULT_SHARD_KEEPER_OPTIONS, newMemberId, ShardKeeper } from '@jumbe/coordination';
import type { BusSubscription } from '@jumbe/messaging';
import { ManagedWork } from '@jumbe/platform';
import { observeConsumerPending, observeShardOwner, observeWebhookPoster } from '@jumbe/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { DispatchCommandHandler } from './dispatch-command-handler';
import { DispatcherShardOwner } from './dispatcher-shard-owner';
import { EventDispatcher } from './event-dispatcher';
import type { WebhookDispatcherPorts } from './ports/webhook-dispatcher-ports';
import { WebhookDirectory } from './webhook-directory';
import { WebhookPoster } from './webhook-poster';

const WEBHOOK_DISPATCHER_PORTS = Symbol('WEBHOOK_DISPATCHER_PORTS');

/** The dispatcher's parts, wired from its ports. */
class WebhookDispatcherService {
  private readonly directory: WebhookDirectory;
  private readonly dispatcher: EventDispatcher;
  private readonly keeper: ShardKeeper;
  private readonly commands: DispatchCommandHandler;
  private subscription: BusSubscription | null = null;

  constructor(private readonly ports: WebhookDispatcherPorts) {
    const { deliveries, logger, config } = ports;
    const poster = observeWebhookPoster(new WebhookPoster(config.allowPrivateNetworks));
    this.directory = new WebhookDirectory(ports.webhooks, ports.webhookSecrets, ports.invalidations);
    this.dispatcher = new EventDispatcher(this.directory, poster, deliveries, logger, {
      retryBaseMs: config.webhookRetryBaseMs,
    });
    this.commands = new DispatchCommandHandler(this.directory, poster, deliveries, logger);
    observeConsumerPending(ports.events);
    const dispatcherId = newMemberId();
    this.keeper = new ShardKeeper(
      dispatcherId,
      ports.leases,
      ports.registry,
      observeShardOwner(
        'webhook-dispatcher',
        new DispatcherShardOwner(ports.events, this.dispatcher, logger),
      ),
      logger.child({ dispatcherId }),
      DEFAULT_SHARD_KEEPER_OPTIONS,
      ports.leaseUpkeep(),
    );
  }

  async start(): Promise<void> {
    await this.directory.start();
    this.subscription = await this.ports.bus.serve(
      DISPATCH_SUBJECT,
      (payload, message) => this.commands.handle(payload, message),
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
  static register(ports: WebhookDispatcherPorts): DynamicModule {
    return {
      module: WebhookDispatcherModule,
      providers: [
        { provide: WEBHOOK_DISPATCHER_PORTS, useValue: ports },
        {
          provide: ManagedWork,
          useFactory: (bound: WebhookDispatcherPorts) => new ManagedWork(new WebhookDispatcherService(bound)),
          inject: [WEBHOOK_DISPATCHER_PORTS],
        },
      ],
    };
  }
}
