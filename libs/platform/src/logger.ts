import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { BatchedLines } from './batched-lines';

/**
 * Secrets must never reach logs: API keys, admin tokens and webhook secrets travel in these
 * headers and fields, and message text and phone numbers are customers' data. A field with one of
 * these names is replaced wherever it appears in a logged object (any depth, not only where pino's
 * path-based redaction would look), by the same walk that strips URL queries.
 */
const SENSITIVE_FIELDS = new Set([
  'authorization',
  'x-api-key',
  'secret',
  'secretKey',
  'adminToken',
  'key',
  'token',
  'password',
  'text',
  'caption',
  'to',
  'phoneNumber',
]);
const CENSORED = '[redacted]';
/**
 * pino applies serializers to a child logger's fields (`logger.child({ … })`), which never pass
 * the `log` formatter; the walk below covers what is logged on each line.
 */
const CENSOR_SERIALIZERS = Object.fromEntries([...SENSITIVE_FIELDS].map((field) => [field, () => CENSORED]));

/** A URL's query may carry a token (`?token=…`): logged URLs keep their path only. */
const URL_QUERY = /\b(https?:\/\/[^\s?#"']*)\?[^\s#"']*/gi;
/** Literal values PostgreSQL quotes in its messages (`invalid input syntax for type uuid: "…"`). */
const QUOTED_VALUE = /"[^"]*"|\([^()]*\)=\([^()]*\)/g;

/** A string without a `?` has no URL query: most log strings, so they skip the regular expression. */
function scrubString(value: string): string {
  return value.includes('?') ? value.replace(URL_QUERY, '$1?[redacted]') : value;
}

/**
 * Censors sensitive fields and strips URL queries from every string of a logged object
 * (depth-limited; logs are shallow). Copy-on-write: an object with nothing to hide is returned
 * as it is, so the one line logged per request allocates nothing here (this walk replaced pino's
 * wildcard redaction, which cost about 5 µs a line, half of a line's whole cost).
 */
export function scrubLogValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value);
  // Errors are left whole for `serializeError`, which knows what to keep.
  if (depth > 4 || value === null || typeof value !== 'object' || value instanceof Error) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const scrubbed = scrubLogValue(item, depth + 1);
      if (scrubbed !== item) (copy ??= value.slice())[index] = scrubbed;
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const field in record) {
    if (!Object.prototype.hasOwnProperty.call(record, field)) continue;
    const item = record[field];
    const scrubbed =
      SENSITIVE_FIELDS.has(field) && item !== undefined ? CENSORED : scrubLogValue(item, depth + 1);
    if (scrubbed !== item) (copy ??= { ...record })[field] = scrubbed;
  }
  return copy ?? value;
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
    text === undefined ? undefined : scrubString(fromDatabase ? text.replace(QUOTED_VALUE, '[value]') : text);
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
 * pino-pretty's readable lines instead, formatted in this process after redaction (no transport
 * thread, nothing fetched or spawned).
 *
 * Lines for a collector are gathered into writes of about 16 KB, at least every 100 ms
 * (BatchedLines): one `write` per line was 6% of a busy gateway's CPU (one access line per
 * request). On exit (a fatal error, SIGTERM) what is gathered is written before the process
 * ends; only a SIGKILL can take the last 100 ms of lines with it.
 */
function logDestination(output: LogOutput): DestinationStream {
  if (output.isTTY) {
    const pretty = prettyFactory({
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service',
    });
    return { write: (line: string) => void output.write(pretty(line)) };
  }
  if (output === process.stdout && typeof process.stdout.fd === 'number') {
    // SonicBoom writes each batch as it comes (queued behind a write in flight): the gathering
    // is BatchedLines' (see there why not SonicBoom's `minLength`).
    return new BatchedLines(pino.destination({ dest: process.stdout.fd, minLength: 0 }));
  }
  return output as DestinationStream;
}

export function createLogger(level: string, service: string, output: LogOutput = process.stdout): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    serializers: { ...CENSOR_SERIALIZERS, err: serializeError, error: serializeError },
    formatters: { log: (object) => scrubLogValue(object) as Record<string, unknown> },
    hooks: {
      // The message string too: `logger.info('posting to https://…?token=…')` must not leak either.
      logMethod(args, method) {
        for (let index = 0; index < args.length; index++) {
          const argument: unknown = args[index];
          if (typeof argument === 'string') args[index] = scrubString(argument) as never;
        }
        method.apply(this, args);
      },
    },
  };
  return pino(options, logDestination(output));
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
