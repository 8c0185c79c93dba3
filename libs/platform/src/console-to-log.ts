import { format } from 'node:util';
import type { Logger } from 'pino';

/** What a `console` call may keep: its text, never the objects logged with it. */
function textOf(args: unknown[]): string {
  const strings = args.filter((argument): argument is string => typeof argument === 'string');
  return format(...strings);
}

/**
 * Third-party libraries write to `console`, outside the structured log and its redaction. One of
 * them leaks secrets: libsignal (under Baileys) prints whole Signal sessions, ratchet private keys
 * and root keys included, with `console.info` each time a contact's session is replaced. In a
 * service, every `console` call becomes a log line of its text only (its objects are dropped):
 * `log`/`info`/`debug` at debug, `warn`/`error` at warn.
 */
export function routeConsoleToLog(logger: Logger): void {
  const quiet = (...args: unknown[]) => logger.debug({ source: 'console' }, textOf(args));
  const loud = (...args: unknown[]) => logger.warn({ source: 'console' }, textOf(args));
  console.log = quiet;
  console.info = quiet;
  console.debug = quiet;
  console.trace = quiet;
  console.warn = loud;
  console.error = loud;
}
