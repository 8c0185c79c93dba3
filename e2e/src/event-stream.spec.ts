import type { ApiClient } from '@jumbe/testing';
import { connect } from 'node:net';
import WebSocket from 'ws';
import { expectError } from './support/expect-error';
import { createAccount, type TestAccount } from './support/operator';
import { linkSession } from './support/sandbox-helpers';
import { startAllInOne, startDistributed, type Topology } from './support/topology';

/** One frame of a stream: `id` on events only. */
interface Frame {
  id?: string;
  event: string;
  data: any;
}

/** A frame not arriving within this is a failure (events reach a stream in milliseconds). */
const FRAME_TIMEOUT_MS = 15_000;

/** Frames as they arrive, handed out in order to whoever waits. */
class FrameQueue {
  private readonly frames: Frame[] = [];
  private waiter: (() => void) | null = null;
  ended = false;

  push(frame: Frame): void {
    this.frames.push(frame);
    this.waiter?.();
  }

  end(): void {
    this.ended = true;
    this.waiter?.();
  }

  async next(): Promise<Frame> {
    const deadline = Date.now() + FRAME_TIMEOUT_MS;
    while (this.frames.length === 0) {
      if (this.ended) throw new Error('the stream ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no frame within the timeout');
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
    return this.frames.shift() as Frame;
  }

  /** The next event frame (not a control frame). */
  async nextEvent(): Promise<Frame> {
    for (;;) {
      const frame = await this.next();
      if (frame.id !== undefined) return frame;
    }
  }
}

/** An SSE stream read with fetch and the x-api-key header, as the dashboard reads it. */
async function openSse(
  api: ApiClient,
  key: string,
  options: { query?: string; lastEventId?: string } = {},
): Promise<{ status: number; frames: FrameQueue; close: () => void; body?: any; headers: Headers }> {
  const aborter = new AbortController();
  const response = await fetch(`${api.baseUrl}/api/v1/events${options.query ?? ''}`, {
    headers: {
      'x-api-key': key,
      accept: 'text/event-stream',
      ...(options.lastEventId ? { 'last-event-id': options.lastEventId } : {}),
    },
    signal: aborter.signal,
  });
  const frames = new FrameQueue();
  if (response.status !== 200 || !response.body) {
    return {
      status: response.status,
      frames,
      close: () => undefined,
      body: await response.json(),
      headers: response.headers,
    };
  }
  const reader = response.body.getReader();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame = parseSseBlock(block);
          if (frame) frames.push(frame);
        }
      }
    } catch {
      // Aborted by the test.
    }
    frames.end();
  })();
  return { status: 200, frames, close: () => aborter.abort(), headers: response.headers };
}

function parseSseBlock(block: string): Frame | null {
  const fields = new Map<string, string>();
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue; // a heartbeat comment
    const colon = line.indexOf(':');
    fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
  }
  const event = fields.get('event');
  if (event === undefined) return null;
  return { id: fields.get('id'), event, data: JSON.parse(fields.get('data') ?? 'null') };
}

/** A WebSocket stream, the key offered as a subprotocol as a browser would. */
async function openWebSocket(
  api: ApiClient,
  key: string,
  query = '',
): Promise<{ socket: WebSocket; frames: FrameQueue; protocol: string }> {
  const url = `${api.baseUrl.replace(/^http/, 'ws')}/api/v1/events${query}`;
  const socket = new WebSocket(url, ['jumbe.v1', `jumbe.key.${key}`]);
  const frames = new FrameQueue();
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as Frame));
  socket.on('close', () => frames.end());
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, frames, protocol: socket.protocol };
}

/** What a refused WebSocket handshake answered (status), via ws' unexpected-response. */
async function refusedHandshake(api: ApiClient, protocols: string[]): Promise<{ status: number; body: any }> {
  const socket = new WebSocket(`${api.baseUrl.replace(/^http/, 'ws')}/api/v1/events`, protocols);
  return new Promise((resolve, reject) => {
    socket.once('open', () => reject(new Error('the handshake was accepted')));
    socket.once('error', () => undefined);
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
  });
}

/** Sends raw request bytes and returns the status line of the answer (the connection then closes). */
async function rawStatusLine(api: ApiClient, request: string): Promise<string> {
  const { hostname, port } = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(text.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
    socket.setTimeout(FRAME_TIMEOUT_MS, () => socket.destroy());
  });
}

function describeEventStream(start: () => Promise<Topology>): void {
  let topology: Topology;
  let first: ApiClient;
  let last: ApiClient;
  let a: TestAccount;
  let b: TestAccount;

  const inbound = async (account: TestAccount, text: string): Promise<string> => {
    const sent = await first.post('/api/v1/sandbox/inbound', {
      key: account.key,
      body: { from: '254722000042', text },
    });
    expect(sent.status).toBe(200);
    return sent.body.data.id as string;
  };

  beforeAll(async () => {
    topology = await start();
    first = topology.gateways[0] as ApiClient;
    last = topology.gateways[topology.gateways.length - 1] as ApiClient;
    a = await createAccount(first, topology.adminToken);
    b = await createAccount(first, topology.adminToken);
    await linkSession(first, a.key);
    await linkSession(first, b.key);
  });
  afterAll(async () => {
    await topology?.stop();
  });

  it("streams an account's events as SSE, never another account's, and resumes after the last id", async () => {
    const streamA = await openSse(first, a.key);
    const streamB = await openSse(last, b.key);
    try {
      expect(streamA.status).toBe(200);
      expect(streamA.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const started = await streamA.frames.next();
      expect(started).toMatchObject({
        event: 'stream.start',
        data: { resume: 'live', types: ['message.received'] },
      });
      expect(started.id).toBeUndefined();
      await streamB.frames.next();

      const a1 = await inbound(a, 'first for A');
      const e1 = await streamA.frames.nextEvent();
      expect(e1).toMatchObject({
        event: 'message.received',
        data: {
          event: 'message.received',
          customerId: a.accountId,
          message: { id: a1, text: 'first for A' },
        },
      });
      expect(e1.data.deliveryId).toEqual(expect.any(String));
      expect(e1.id).toMatch(/^\d+$/);

      const b1 = await inbound(b, 'for B only');
      expect((await streamB.frames.nextEvent()).data.message.id).toBe(b1);
      const a2 = await inbound(a, 'second for A');
      // A's next event is its own second message: B's event, stored between them, never reached it.
      const e2 = await streamA.frames.nextEvent();
      expect(e2.data.message.id).toBe(a2);
      expect(Number(e2.id)).toBeGreaterThan(Number(e1.id));

      streamA.close();
      const a3 = await inbound(a, 'while A was away');
      const resumed = await openSse(last, a.key, { lastEventId: e2.id });
      try {
        expect(await resumed.frames.next()).toMatchObject({
          event: 'stream.start',
          data: { resume: 'complete', since: Number(e2.id) },
        });
        const e3 = await resumed.frames.nextEvent();
        expect(e3.data.message.id).toBe(a3);
        const a4 = await inbound(a, 'after the reconnect');
        expect((await resumed.frames.nextEvent()).data.message.id).toBe(a4);
      } finally {
        resumed.close();
      }
    } finally {
      streamA.close();
      streamB.close();
    }
  });

  it('serves a WebSocket to a read key offered as a subprotocol, resuming from ?since=', async () => {
    const created = await first.post('/api/v1/keys', {
      key: a.key,
      body: { name: 'stream reader', scope: 'read' },
    });
    expect(created.status).toBe(201);
    const readKey = created.body.key as string;
    const sse = await openSse(first, a.key);
    await sse.frames.next();
    const a5 = await inbound(a, 'before the socket');
    const before = await sse.frames.nextEvent();
    sse.close();
    expect(before.data.message.id).toBe(a5);

    const a6 = await inbound(a, 'the socket resumes here');
    const { socket, frames, protocol } = await openWebSocket(
      last,
      readKey,
      `?since=${before.id}&types=message.received`,
    );
    try {
      expect(protocol).toBe('jumbe.v1');
      expect(await frames.next()).toMatchObject({ event: 'stream.start', data: { resume: 'complete' } });
      const event = await frames.next();
      expect(event).toMatchObject({ event: 'message.received', data: { message: { id: a6 } } });
      expect(typeof event.id).toBe('number');
    } finally {
      socket.close();
    }
  });

  it('counts one API hit per stream opened, none per event it carries', async () => {
    const hits = async () => (await first.get('/api/v1/usage', { key: a.key })).body.data.apiHits as number;
    const before = await hits();
    const stream = await openSse(last, a.key);
    try {
      await stream.frames.next();
      await inbound(a, 'one');
      await inbound(a, 'two');
      await stream.frames.nextEvent();
      await stream.frames.nextEvent();
    } finally {
      stream.close();
    }
    // The stream, the two sandbox calls and this read of the usage.
    expect(await hits()).toBe(before + 4);
  });

  it('answers any other request asking to upgrade (h2c, a WebSocket elsewhere) as the plain request it is', async () => {
    const upgrade =
      'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n';
    expect(
      await rawStatusLine(
        first,
        `GET /api/v1/usage HTTP/1.1\r\nHost: x\r\nx-api-key: ${a.key}\r\n${upgrade}\r\n`,
      ),
    ).toBe('HTTP/1.1 200 OK');
    const webSocketElsewhere =
      'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
    expect(
      await rawStatusLine(
        first,
        `GET /api/v1/sessions HTTP/1.1\r\nHost: x\r\nx-api-key: ${a.key}\r\n${webSocketElsewhere}\r\n`,
      ),
    ).toBe('HTTP/1.1 200 OK');
    // Its body could no longer be read: refused, not misread as empty.
    expect(
      await rawStatusLine(
        first,
        `POST /api/v1/messages/text HTTP/1.1\r\nHost: x\r\nx-api-key: ${a.key}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n${upgrade}\r\n{}`,
      ),
    ).toBe('HTTP/1.1 400 Bad Request');
  });

  it('tells a client whose id it no longer keeps (or never issued) that it missed events', async () => {
    const stream = await openSse(first, a.key, { query: '?since=999999999999999' });
    try {
      expect(await stream.frames.next()).toMatchObject({ event: 'stream.start', data: { resume: 'gap' } });
    } finally {
      stream.close();
    }
  });

  it('refuses what is not a stream, a bad key, unknown types, and more than 5 streams of an account', async () => {
    expectError(await first.get('/api/v1/events', { key: a.key }), 400, 'validation_error');
    const unknownType = await openSse(first, a.key, { query: '?types=message.deleted' });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.error.code).toBe('validation_error');
    const badKey = await refusedHandshake(first, ['jumbe.v1', 'jumbe.key.not-a-key']);
    expect(badKey).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });

    // A malformed handshake (ws refuses its key) leaves no stream behind holding a slot.
    const malformed = `GET /api/v1/events HTTP/1.1\r\nHost: x\r\nx-api-key: ${a.key}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n`;
    for (let i = 0; i < 5; i += 1)
      expect(await rawStatusLine(first, malformed)).toBe('HTTP/1.1 400 Bad Request');

    const open = [];
    try {
      for (let i = 0; i < 5; i += 1) {
        const stream = await openSse(first, a.key);
        expect(stream.status).toBe(200);
        open.push(stream);
      }
      const sixth = await openSse(first, a.key);
      expect(sixth.status).toBe(429);
      expect(sixth.body.error.code).toBe('rate_limited');
      // Another account is not held back by A's streams.
      const other = await openSse(first, b.key);
      expect(other.status).toBe(200);
      open.push(other);
    } finally {
      for (const stream of open) stream.close();
    }
  });
}

describe('live event stream, all-in-one', () => {
  describeEventStream(() => startAllInOne());
});

describe('live event stream, distributed (2 gateways, 1 worker)', () => {
  describeEventStream(() => startDistributed(2, {}, 1));
});
