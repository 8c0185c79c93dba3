import { connect, type Socket } from 'node:net';

/** What came back on a raw connection, and how long the server kept it open. */
export interface RawExchange {
  response: string;
  closedAfterMs: number;
  /** The server's first bytes arrived while chunks were still left to write. */
  answeredBeforeAllSent: boolean;
  /** The server reset the connection (ECONNRESET/EPIPE) rather than closing it after an answer. */
  reset: boolean;
}

/** How `rawExchange` writes. */
export interface RawExchangeOptions {
  /** Pause between two chunks. */
  gapMs?: number;
  localAddress?: string;
  /** The connection is destroyed after this long (default 60 s). */
  giveUpMs?: number;
  /**
   * After the first chunk (the head), wait up to this long for the server to answer before writing
   * the rest: a server that answers from the head alone is told apart from one that reads the body
   * first, however long its event loop lags.
   */
  answerWaitMs?: number;
}

/**
 * Writes `chunks` on a raw TCP connection (each after `gapMs`), then reads until the server closes
 * it. For what `fetch` cannot send: broken framing, conflicting lengths, trickled bytes.
 */
export function rawExchange(
  url: string,
  chunks: (string | Buffer)[],
  options: RawExchangeOptions = {},
): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    const socket = connect({ host: hostname, port: Number(port), localAddress: options.localAddress });
    let timer: NodeJS.Timeout | undefined;
    let reset = false;
    let answeredBeforeAllSent = false;
    let index = 0; // the next chunk to write
    const giveUp = setTimeout(() => socket.destroy(), options.giveUpMs ?? 60_000);
    const finish = () => {
      clearTimeout(giveUp);
      if (timer) clearTimeout(timer);
      resolve({
        response: Buffer.concat(received).toString('utf8'),
        closedAfterMs: Date.now() - started,
        answeredBeforeAllSent,
        reset,
      });
    };
    let resume: (() => void) | undefined; // set while the writer waits for the server's answer
    socket.on('data', (data) => {
      if (received.length === 0 && index < chunks.length) answeredBeforeAllSent = true;
      received.push(data);
      resume?.();
    });
    socket.on('close', finish);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true;
    });
    const writeNext = () => {
      resume = undefined;
      if (socket.destroyed || index >= chunks.length) return;
      socket.write(chunks[index++]!);
      const gapMs = options.gapMs ?? 0;
      if (index === 1 && options.answerWaitMs !== undefined && received.length === 0) {
        timer = setTimeout(writeNext, options.answerWaitMs);
        resume = () => {
          clearTimeout(timer);
          timer = setTimeout(writeNext, gapMs);
          resume = undefined;
        };
        return;
      }
      timer = setTimeout(writeNext, gapMs);
    };
    socket.once('connect', writeNext);
  });
}

/** Opens a connection and keeps it; the caller decides what to send and when to close. */
export function openSocket(url: string, localAddress?: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Status line and JSON body of a raw HTTP/1.1 response. */
export function parseRawResponse(text: string): { status: number; body: any } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const bodyText = text.slice(text.indexOf('\r\n\r\n') + 4);
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    body = bodyText;
  }
  return { status, body };
}

/** Resident memory of a process, in MiB, from /proc. */
export async function residentMiB(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return Math.round((kib / 1024) * 10) / 10;
}

/** The contract's error envelope (CONTRACT §1). */
export function isErrorEnvelope(body: any): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof body.message === 'string' &&
    typeof body.error === 'object' &&
    body.error !== null &&
    typeof body.error.code === 'string'
  );
}
