import './tracing';
import 'reflect-metadata';
import { runBackgroundService, telemetryBindings } from '@jumbe/composition';
import { webhookDispatcherBindings } from '@jumbe/webhook-dispatcher-composition';
import { TelemetryModule } from '@jumbe/telemetry';
import { WebhookDispatcherModule } from '@jumbe/webhook-dispatcher';

/** A webhook dispatcher, one of K replicas (`npm run start:dispatcher`): delivers its share of the event shards. */
runBackgroundService('webhook-dispatcher', (infrastructure) =>
  TelemetryModule.around(
    WebhookDispatcherModule.register(webhookDispatcherBindings(infrastructure)),
    telemetryBindings(infrastructure),
  ),
);
