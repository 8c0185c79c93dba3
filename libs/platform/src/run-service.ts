import { exitOnConfigError } from '@jumbe/config';
import { stopTracing } from '@jumbe/telemetry/tracing';
import type { Logger } from 'pino';
import { routeConsoleToLog } from './console-to-log';
import { shutdownState } from './shutdown-state';

export interface RunningService {
  /**
   * Stops accepting work, finishes the work in hand (requests, deliveries; a worker hands its
   * shards over) and releases everything; called once on SIGTERM / SIGINT.
   */
  stop(): Promise<void>;
  /**
   * JUMBE_SHUTDOWN_DELAY_SECONDS: how long to keep serving after the signal with the health check
   * already failing, so load balancers take the process out before its port closes.
   */
  shutdownDelayMs?: number;
}

/**
 * Runs a service until SIGTERM or SIGINT, then shuts it down gracefully, once (a second signal
 * forces exit): readiness fails at once, the service keeps serving for the shutdown delay, then
 * stops and exits 0. A failure to start is logged and exits with status 1, never an unhandled
 * rejection. Whatever libraries print with `console` goes to the log, text only (console-to-log.ts).
 */
export function runService(logger: Logger, start: () => Promise<RunningService>): void {
  routeConsoleToLog(logger);
  start()
    .then((service) => {
      const shutdown = (signal: string) => {
        if (shutdownState.stopping) process.exit(1);
        shutdownState.begin();
        const delayMs = service.shutdownDelayMs ?? 0;
        logger.info({ signal, delayMs }, 'shutting down: health now fails; stopping after the delay');
        new Promise((resolve) => setTimeout(resolve, delayMs))
          .then(() => service.stop())
          .then(() => stopTracing()) // the spans of the last moments, before they are lost
          .then(() => {
            logger.info('stopped');
            process.exit(0);
          })
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
