import { exitOnConfigError } from '@jumbe/config';
import { stopTracing } from '@jumbe/telemetry/tracing';
import type { Logger } from 'pino';

export interface RunningService {
  /** Stops accepting work and releases everything; called once on SIGTERM / SIGINT. */
  stop(): Promise<void>;
}

/**
 * Runs a service until SIGTERM or SIGINT, then stops it once (a second signal forces exit).
 * A failure to start is logged and exits with status 1, never an unhandled rejection.
 */
export function runService(logger: Logger, start: () => Promise<RunningService>): void {
  let stopping = false;
  start()
    .then((service) => {
      const shutdown = (signal: string) => {
        if (stopping) process.exit(1);
        stopping = true;
        logger.info({ signal }, 'shutting down');
        service
          .stop()
          .then(() => stopTracing()) // the spans of the last moments, before they are lost
          .then(() => process.exit(0))
          .catch((error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          });
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
    })
    .catch((error: unknown) => {
      // A setting found wrong while starting (e.g. an unreadable secret key file): one line each.
      if (exitOnConfigError(error)) return;
      logger.fatal({ err: error }, 'failed to start');
      process.exit(1);
    });
  process.on('unhandledRejection', (error) => logger.error({ err: error }, 'unhandled rejection'));
}
