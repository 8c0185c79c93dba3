import './tracing';
import 'reflect-metadata';
import { runBackgroundService, telemetryBindings } from '@jumbe/composition';
import { SESSION_WORKER_INFRASTRUCTURE, sessionWorkerBindings } from '@jumbe/session-worker-composition';
import { SessionWorkerModule } from '@jumbe/session-worker';
import { TelemetryModule } from '@jumbe/telemetry';

/** A session worker, one of M replicas (`npm run start:worker`): owns a share of the session shards. */
runBackgroundService('session-worker', SESSION_WORKER_INFRASTRUCTURE, (infrastructure) =>
  TelemetryModule.around(
    SessionWorkerModule.register(sessionWorkerBindings(infrastructure)),
    telemetryBindings(infrastructure),
  ),
);
