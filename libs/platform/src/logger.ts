import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';

/**
 * Secrets must never reach logs: API keys, admin tokens and webhook secrets travel in these
 * headers and fields, so pino replaces them wherever they appear in a logged object.
 */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'secret',
  'key',
  '*.secret',
  '*.key',
  'config.secretKey',
  'config.adminToken',
];

export function createLogger(level: string, service: string): Logger {
  return pino({ level, base: { service }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

/** Routes Nest's own log lines into pino, so a process has one structured log. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    // Nest announces every mapped route at start-up; that is debug material, not info.
    const level =
      context === 'RouterExplorer' || context === 'RoutesResolver' || context === 'InstanceLoader'
        ? 'debug'
        : 'info';
    this.logger[level]({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
