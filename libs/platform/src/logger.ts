import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';

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
  'token',
  'password',
  'text',
  'caption',
  'to',
  'phoneNumber',
  '*.token',
  '*.text',
  '*.to',
  '*.phoneNumber',
];

/** A URL's query may carry a token (`?token=…`): logged URLs keep their path only. */
const URL_QUERY = /\b(https?:\/\/[^\s?#"']*)\?[^\s#"']*/gi;
/** Literal values PostgreSQL quotes in its messages (`invalid input syntax for type uuid: "…"`). */
const QUOTED_VALUE = /"[^"]*"|\([^()]*\)=\([^()]*\)/g;

/** Strips URL queries from every string of a logged object (depth-limited; logs are shallow). */
export function scrubLogValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(URL_QUERY, '$1?[redacted]');
  // Errors are left whole for `serializeError`, which knows what to keep.
  if (depth > 4 || value === null || typeof value !== 'object' || value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((item) => scrubLogValue(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, item]) => [
      key,
      scrubLogValue(item, depth + 1),
    ]),
  );
}

/**
 * Errors are logged by name, code, message and stack, never with what a database driver attaches:
 * TypeORM's `parameters` and `query`, PostgreSQL's `detail` and `where` repeat the values a query
 * carried (message text, phone numbers, a webhook URL's token). Quoted literals in a database
 * error's message go the same way.
 */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return scrubLogValue(error);
  const fromDatabase = 'parameters' in error || 'routine' in error || 'driverError' in error;
  const scrub = (text: string | undefined) =>
    text === undefined
      ? undefined
      : (scrubLogValue(fromDatabase ? text.replace(QUOTED_VALUE, '[value]') : text) as string);
  return {
    type: error.name,
    code: (error as { code?: unknown }).code,
    message: scrub(error.message),
    stack: scrub(error.stack),
  };
}

/** Where a process logs: stdout, or a test's stand-in for it. */
export type LogOutput = Pick<NodeJS.WriteStream, 'write'> & { isTTY?: boolean };

/**
 * One JSON object per line, for log collectors; on a terminal (someone running `npm start`),
 * pino-pretty's readable lines instead. They are formatted in this process, synchronously, after
 * redaction (no transport thread, nothing fetched or spawned), so the last lines before an exit
 * are never lost.
 */
function logDestination(output: LogOutput): DestinationStream | undefined {
  if (output.isTTY) {
    const pretty = prettyFactory({
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service',
    });
    return { write: (line: string) => void output.write(pretty(line)) };
  }
  // pino's own stdout destination (synchronous writes to fd 1) unless told otherwise.
  return output === process.stdout ? undefined : (output as DestinationStream);
}

export function createLogger(level: string, service: string, output: LogOutput = process.stdout): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
    formatters: { log: (object) => scrubLogValue(object) as Record<string, unknown> },
    hooks: {
      // The message string too: `logger.info('posting to https://…?token=…')` must not leak either.
      logMethod(args, method) {
        method.apply(
          this,
          args.map((argument) =>
            typeof argument === 'string' ? scrubLogValue(argument) : argument,
          ) as never,
        );
      },
    },
  };
  const destination = logDestination(output);
  return destination === undefined ? pino(options) : pino(options, destination);
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
