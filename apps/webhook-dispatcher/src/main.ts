import './tracing';
import 'reflect-metadata';
import { runBackgroundService, telemetryBindings } from '@jumbe/composition';
import {
  WEBHOOK_DISPATCHER_INFRASTRUCTURE,
  webhookDispatcherBindings,
} from '@jumbe/webhook-dispatcher-composition';
import { TelemetryModule } from '@jumbe/telemetry';
import { WebhookDispatcherModule } from '@jumbe/webhook-dispatcher';

/** A webhook dispatcher, one of K replicas (`npm run start:dispatcher`): delivers its share of the event shards. */
runBackgroundService('webhook-dispatcher', WEBHOOK_DISPATCHER_INFRASTRUCTURE, (infrastructure) =>
  TelemetryModule.around(
    WebhookDispatcherModule.register(webhookDispatcherBindings(infrastructure)),
    telemetryBindings(infrastructure),
  ),
);
