import type { DestinationStream } from 'pino';

/** What BatchedLines writes through: pino's destination (SonicBoom) on a file descriptor. */
export interface LineSink {
  write(text: string): unknown;
  flushSync(): void;
}

/**
 * Log lines gathered in an array and handed to the file descriptor's writer as one string of
 * about `batchChars`, at least every `everyMs`. SonicBoom's own gathering (`minLength`) appends
 * each line to its pending string and measures that string's UTF-8 length on every line, which
 * copies it whole each time: up to 16 KB per log line, the largest garbage of a busy gateway.
 * Here a line costs an array push; the join and the measure happen once per batch, and the
 * descriptor sees a few large writes instead of many small ones.
 *
 * Nothing gathered is lost on a normal exit (SIGTERM, a fatal error, `process.exit`): the
 * `exit` hook writes it synchronously. Only a SIGKILL can take the last `everyMs` of lines.
 */
export class BatchedLines implements DestinationStream {
  private lines: string[] = [];
  private chars = 0;

  constructor(
    private readonly sink: LineSink,
    private readonly batchChars = 16_000,
    everyMs = 100,
  ) {
    setInterval(() => this.release(), everyMs).unref();
    process.on('exit', () => this.flushSync());
  }

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= this.batchChars) this.release();
  }

  /** Writes what is gathered before returning (pino calls it on exit and after a fatal line). */
  flushSync(): void {
    this.release();
    try {
      this.sink.flushSync();
    } catch {
      // The descriptor is gone or refuses (a closed pipe while exiting): nothing left to do.
    }
  }

  private release(): void {
    if (this.chars === 0) return;
    const text = this.lines.join('');
    this.lines = [];
    this.chars = 0;
    this.sink.write(text);
  }
}
