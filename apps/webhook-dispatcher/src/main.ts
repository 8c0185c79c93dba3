import 'reflect-metadata';
import { runBackgroundService } from '@jumbe/platform';
import { WebhookDispatcherModule } from '@jumbe/webhook-dispatcher';

/** A webhook dispatcher, one of K replicas (`npm run start:dispatcher`): delivers its share of the event shards. */
runBackgroundService('webhook-dispatcher', (infrastructure) =>
  WebhookDispatcherModule.register(infrastructure),
);
