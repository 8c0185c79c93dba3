import { deliverySchema } from '@jumbe/contracts';
import type { z } from 'zod';
import { shardOf } from '@jumbe/domain';
import {
  type ApiClient,
  type ReceiverBehaviour,
  RecordingReceiver,
  type ReceivedRequest,
} from '@jumbe/testing';
import { verifyDelivery } from '@jumbe/webhook-receiver';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createAccount, type TestAccount } from './support/operator';
import { eventually, linkSession } from './support/sandbox-helpers';
import { type DistributedTopology, startDistributed } from './support/topology';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An account with a linked session and a webhook at a receiver of its own. */
interface Subscriber {
  account: TestAccount;
  sessionId: string;
  receiver: RecordingReceiver | null;
  path: string;
  url: string;
  secret: string;
}

/** A delivery as GET /api/v1/webhook lists it (CONTRACT §6). */
type Delivery = z.output<typeof deliverySchema>;

/** The resident memory of a process, in bytes, as Linux reports it. */
async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A port of 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A session id whose events land in `shard` for this account (so two accounts share a stream consumer). */
function sessionIdInShard(accountId: string, shard: number): string {
  for (let i = 0; i < 10_000; i += 1) {
    const candidate = `bystander-${i}`;
    if (shardOf(accountId, candidate) === shard) return candidate;
  }
  throw new Error(`no session id of ${accountId} in shard ${shard}`);
}

/**
 * Issue 4 "Bad input and faults", over real HTTP against real local receivers: every way a receiver
 * can answer (or not) is recorded as the delivery's status, statusCode, error and at most 1 KiB of
 * response; the dispatcher's memory stays flat; a slow receiver holds up only its own account; a
 * secret rotated mid-burst signs each delivery with exactly one of the two secrets.
 */
describe('distributed: webhook receivers that misbehave (2 gateways, 1 worker, 1 dispatcher)', () => {
  let topology: DistributedTopology;
  let api: ApiClient;
  const receivers: RecordingReceiver[] = [];

  beforeAll(async () => {
    topology = await startDistributed(2, { JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }, 1, { dispatchers: 1 });
    api = topology.gateways[0]!;
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await topology?.stop();
  });

  /**
   * A new account with a linked session whose webhook points at a receiver of its own that
   * answers with `behaviour` (default 200 "ok"), or at `url` when given (no receiver).
   */
  async function subscriber(
    name: string,
    options: {
      behaviour?: ReceiverBehaviour;
      url?: string;
      sessionIdFor?: (accountId: string) => string;
    } = {},
  ): Promise<Subscriber> {
    const path = `/${name}`;
    let receiver: RecordingReceiver | null = null;
    let url = options.url;
    if (url === undefined) {
      receiver = await RecordingReceiver.start();
      receivers.push(receiver);
      if (options.behaviour) receiver.on(path, options.behaviour);
      url = `${receiver.url}${path}`;
    }
    const account = await createAccount(api, topology.adminToken);
    const sessionId = options.sessionIdFor?.(account.accountId) ?? 'default';
    await linkSession(api, account.key, sessionId);
    const saved = await api.patch('/api/v1/webhook', { key: account.key, body: { url } });
    expect(saved.status).toBe(200);
    return { account, sessionId, receiver, path, url, secret: saved.body.secret };
  }

  /** An inbound message on the subscriber's session; returns its id and when it was sent. */
  async function inbound(sub: Subscriber, text: string): Promise<{ id: string; sentAt: number }> {
    const sentAt = Date.now();
    const sent = await api.post('/api/v1/sandbox/inbound', {
      key: sub.account.key,
      body: { sessionId: sub.sessionId, from: '254722300000', text },
    });
    expect(sent.status).toBe(200);
    return { id: sent.body.data.id, sentAt };
  }

  async function deliveries(sub: Subscriber): Promise<Delivery[]> {
    const listed = await api.get('/api/v1/webhook', { key: sub.account.key });
    expect(listed.status).toBe(200);
    return listed.body.data.deliveries;
  }

  /** Polls GET /webhook until `count` deliveries are recorded (or the deadline passes). */
  const recorded = (sub: Subscriber, count: number, timeoutMs = 15_000) =>
    eventually(
      () => deliveries(sub),
      (list) => list.length >= count,
      timeoutMs,
    );

  const verifies = (request: ReceivedRequest, secret: string): boolean => {
    try {
      verifyDelivery({ body: request.raw, headers: request.headers as Record<string, string>, secret });
      return true;
    } catch {
      return false;
    }
  };

  describe('records the receiver’s answer', () => {
    const cases: Array<{
      name: string;
      behaviour?: ReceiverBehaviour;
      expected: Partial<Delivery> & { error: unknown };
    }> = [
      {
        name: 'answers-200',
        expected: { status: 'success', statusCode: 200, error: null, response: 'ok' },
      },
      {
        name: 'answers-204',
        behaviour: (_request, response) => {
          response.writeHead(204);
          response.end();
        },
        expected: { status: 'success', statusCode: 204, error: null, response: '' },
      },
      {
        name: 'answers-301',
        behaviour: (request, response) => {
          response.writeHead(301, { location: `http://${request.headers.host}/moved-here` });
          response.end('moved');
        },
        expected: {
          status: 'failed',
          statusCode: 301,
          error: expect.stringMatching(/301.*redirects are not followed/),
          response: 'moved',
        },
      },
      {
        name: 'answers-404',
        behaviour: (_request, response) => {
          response.writeHead(404, { 'content-type': 'text/plain' });
          response.end('no such hook');
        },
        expected: {
          status: 'failed',
          statusCode: 404,
          error: 'receiver answered 404',
          response: 'no such hook',
        },
      },
      {
        name: 'answers-500',
        behaviour: (_request, response) => {
          response.writeHead(500);
          response.end('boom');
        },
        expected: { status: 'failed', statusCode: 500, error: 'receiver answered 500', response: 'boom' },
      },
    ];

    it.each(cases)('$name', async ({ name, behaviour, expected }) => {
      const sub = await subscriber(name, { behaviour });
      const { id } = await inbound(sub, name);
      const [delivery] = await recorded(sub, 1);
      expect(delivery).toMatchObject({
        event: 'message.received',
        sessionId: 'default',
        url: sub.url,
        ...expected,
      });
      expect(delivery!.durationMs).toBeLessThan(5_000);
      // The receiver got exactly one signed attempt (no retry, no redirect followed).
      await sleep(300);
      const requests = sub.receiver!.requests;
      expect(requests.map((request) => request.path)).toEqual([sub.path]);
      expect(requests[0]!.json.message.id).toBe(id);
      expect(requests[0]!.headers['x-service-delivery']).toBe(delivery!.id);
      expect(verifies(requests[0]!, sub.secret)).toBe(true);
      expect(await deliveries(sub)).toHaveLength(1);
    });
  });

  it('times a hanging receiver out after 10 s, and never delays another account meanwhile', async () => {
    // Never answers: the dispatcher's 10 s deadline is all that ends the attempt.
    const hanging = await subscriber('hangs', { behaviour: () => undefined });
    // Another account whose session lands in the same shard: same stream consumer, same dispatcher.
    const hangingShard = shardOf(hanging.account.accountId, hanging.sessionId);
    const bystander = await subscriber('bystander', {
      sessionIdFor: (accountId) => sessionIdInShard(accountId, hangingShard),
    });
    expect(shardOf(bystander.account.accountId, bystander.sessionId)).toBe(hangingShard);

    // Two events queue up behind the hanging receiver (one session: they go out one after the other).
    await inbound(hanging, 'first');
    await inbound(hanging, 'second');
    const [first] = await hanging.receiver!.waitFor(hanging.path, 1, 5_000);
    expect(first).toBeDefined();

    // While it hangs, the other account's deliveries arrive promptly, one after another.
    const latencies: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const { id, sentAt } = await inbound(bystander, `meanwhile ${i}`);
      const arrived = await bystander.receiver!.waitFor(bystander.path, i + 1, 5_000);
      const request = arrived.find((r) => r.json?.message?.id === id);
      expect(request).toBeDefined();
      latencies.push(request!.receivedAt - sentAt);
    }
    // All five came in while the first attempt was still hanging.
    expect(Date.now() - first!.receivedAt).toBeLessThan(9_000);
    expect(hanging.receiver!.at(hanging.path)).toHaveLength(1);

    // The attempt is recorded as a timeout about 10 s after it started, not much later.
    const listed = await eventually(
      () => deliveries(hanging),
      (list) => list.length >= 1,
      15_000,
    );
    const recordedSeenAfterMs = Date.now() - first!.receivedAt;
    expect(listed).toHaveLength(1);
    const [timedOut] = listed;
    expect(timedOut).toMatchObject({
      status: 'failed',
      statusCode: null,
      error: 'timed out after 10000 ms',
      response: null,
    });
    expect(timedOut!.durationMs).toBeGreaterThanOrEqual(9_900);
    expect(timedOut!.durationMs).toBeLessThan(11_000);
    expect(recordedSeenAfterMs).toBeLessThan(12_000);

    // The queued event goes out as soon as the first attempt has ended, and times out in turn.
    const both = await hanging.receiver!.waitFor(hanging.path, 2, 5_000);
    expect(both.map((request) => request.json.message.text)).toEqual(['first', 'second']);
    const startedAfterMs = both[1]!.receivedAt - both[0]!.receivedAt;
    const second = await recorded(hanging, 2, 15_000);
    expect(second[0]).toMatchObject({
      status: 'failed',
      statusCode: null,
      error: 'timed out after 10000 ms',
    });

    console.log(
      [
        'hanging receiver:',
        `  attempt recorded with durationMs ${timedOut!.durationMs}; visible in GET /webhook ${recordedSeenAfterMs} ms after the request reached the receiver`,
        `  the queued second event reached the receiver ${startedAfterMs} ms after the first; recorded with durationMs ${second[0]!.durationMs}`,
        `  other account (same shard) meanwhile: inbound-to-receiver latencies ${latencies.join(', ')} ms`,
      ].join('\n'),
    );
    expect(Math.max(...latencies)).toBeLessThan(2_000);
    expect(startedAfterMs).toBeLessThan(11_500);
  });

  it('records a connection reset mid-response as a failure', async () => {
    const sub = await subscriber('resets', {
      behaviour: (request, response) => {
        // Headers and a first piece of a longer body go out; then the connection is torn down.
        response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100000' });
        response.write('partial body');
        setTimeout(() => request.socket.destroy(), 50);
      },
    });
    await inbound(sub, 'reset me');
    const [delivery] = await recorded(sub, 1);
    expect(sub.receiver!.at(sub.path)).toHaveLength(1);
    expect(delivery).toMatchObject({
      status: 'failed',
      statusCode: null,
      error: expect.stringMatching(/^connection to 127\.0\.0\.1:\d+ closed mid-response$/),
      response: null,
    });
  });

  it('keeps at most 1 KiB of a huge streamed body, with the dispatcher’s memory flat', async () => {
    const BODY_BYTES = 100 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const written: number[] = [];
    const sub = await subscriber('huge', {
      // Streams 100 MB with backpressure, for as long as the dispatcher keeps reading.
      behaviour: (_request, response) => {
        let sent = 0;
        let closed = false;
        response.on('error', () => undefined);
        response.on('close', () => {
          closed = true;
          written.push(sent);
        });
        response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(BODY_BYTES) });
        const pump = (): void => {
          while (!closed && sent < BODY_BYTES) {
            sent += chunk.length;
            if (!response.write(chunk)) {
              response.once('drain', pump);
              return;
            }
          }
          if (!closed) response.end();
        };
        pump();
      },
    });
    const pid = topology.dispatchers[0]!.pid!;
    // Warm up first (connections, JIT), so "before" is the dispatcher's steady state.
    await inbound(sub, 'warm-up');
    await recorded(sub, 1);
    const before = await residentBytes(pid);

    let peak = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await residentBytes(pid));
        await sleep(20);
      }
    })();
    const ROUNDS = 3;
    for (let i = 0; i < ROUNDS; i += 1) await inbound(sub, `huge ${i}`);
    const list = await recorded(sub, 1 + ROUNDS, 20_000);
    sampling = false;
    await sampler;
    await sleep(500);
    const after = await residentBytes(pid);

    expect(list).toHaveLength(1 + ROUNDS);
    for (const delivery of list) {
      expect(delivery).toMatchObject({ status: 'success', statusCode: 200, error: null });
      expect(Buffer.byteLength(delivery.response!, 'utf8')).toBeLessThanOrEqual(1024);
      expect(delivery.response).toMatch(/^x+$/);
      expect(delivery.durationMs).toBeLessThan(5_000);
    }
    await eventually(
      async () => written.length,
      (count) => count === 1 + ROUNDS,
      5_000,
    );
    console.log(
      [
        'huge body receiver:',
        `  ${1 + ROUNDS} deliveries of a ${mib(BODY_BYTES)} body; kept ${list.map((d) => Buffer.byteLength(d.response!)).join(', ')} bytes`,
        `  receiver wrote ${written.map(mib).join(', ')} before the dispatcher hung up`,
        `  dispatcher RSS before ${mib(before)}, peak ${mib(peak)}, after ${mib(after)}`,
      ].join('\n'),
    );
    // Nowhere near the 100 MB each body would take if it were read (generous slack for GC noise).
    expect(peak - before).toBeLessThan(48 * 1024 * 1024);
    expect(after - before).toBeLessThan(32 * 1024 * 1024);
    expect(Math.max(...written)).toBeLessThan(BODY_BYTES / 4);
  });

  it('records a receiver that is not listening as connection refused', async () => {
    const port = await closedPort();
    const sub = await subscriber('refused', { url: `http://127.0.0.1:${port}/nobody-home` });
    await inbound(sub, 'anyone?');
    const [delivery] = await recorded(sub, 1);
    expect(delivery).toMatchObject({
      status: 'failed',
      statusCode: null,
      error: `connection refused by 127.0.0.1:${port}`,
      response: null,
      url: sub.url,
    });
    expect(delivery!.durationMs).toBeLessThan(2_000);
  });

  it('signs each delivery of a burst with exactly one secret when the secret is rotated mid-burst', async () => {
    const TOTAL = 80;
    const sub = await subscriber('rotates', {
      behaviour: (_request, response) => {
        setTimeout(() => response.end('ok'), 10);
      },
    });
    const oldSecret = sub.secret;
    let newSecret = '';
    let rotatedAt = 0;

    const rotation = (async () => {
      await sub.receiver!.waitFor(sub.path, 15, 20_000);
      // Through the other gateway: the dispatcher must learn of it all the same.
      const rotated = await topology.gateways[1]!.patch('/api/v1/webhook', {
        key: sub.account.key,
        body: { rotateSecret: true },
      });
      expect(rotated.status).toBe(200);
      newSecret = rotated.body.secret;
      rotatedAt = Date.now();
    })();
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < TOTAL) {
          const i = next;
          next += 1;
          await inbound(sub, `burst ${i}`);
        }
      }),
    );
    await rotation;
    const requests = await sub.receiver!.waitFor(sub.path, TOTAL, 30_000);
    expect(requests).toHaveLength(TOTAL);
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);

    const signedWith = requests.map((request) => {
      const byOld = verifies(request, oldSecret);
      const byNew = verifies(request, newSecret);
      // Standard Webhooks' own library agrees on which secret signed the webhook-* headers.
      const standard = [oldSecret, newSecret].map((secret) => {
        try {
          new Webhook(secret).verify(request.raw.toString('utf8'), request.headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      expect(standard).toEqual([byOld, byNew]);
      return byOld && !byNew ? 'old' : byNew && !byOld ? 'new' : byOld ? 'both' : 'neither';
    });
    const counts = { old: 0, new: 0, both: 0, neither: 0 };
    for (const kind of signedWith) counts[kind] += 1;
    const oldAfterRotation = requests.filter(
      (r, i) => r.receivedAt > rotatedAt && signedWith[i] === 'old',
    ).length;
    console.log(
      `secret rotated mid-burst: ${counts.old} deliveries signed with the old secret, ${counts.new} with the new, ` +
        `${counts.both + counts.neither} with both or neither; ${oldAfterRotation} old-signed arrived after the rotation was answered`,
    );
    expect(counts).toEqual({ old: expect.any(Number), new: expect.any(Number), both: 0, neither: 0 });
    expect(counts.old).toBeGreaterThan(0);
    expect(counts.new).toBeGreaterThan(0);
    // One session's deliveries go out in order: once the new secret is used, the old one never is again.
    const firstNew = signedWith.indexOf('new');
    expect(signedWith.slice(firstNew).every((kind) => kind === 'new')).toBe(true);
    // Every delivery is recorded as a success, and the receiver saw no duplicate.
    expect(new Set(requests.map((r) => r.headers['x-service-delivery'])).size).toBe(TOTAL);
  });
});
