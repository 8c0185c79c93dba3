import { type ApiClient, RecordingReceiver } from '@jumbe/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createAccount, type TestAccount } from './support/operator';
import { linkSession } from './support/sandbox-helpers';
import { startAllInOne, startDistributed, type Topology } from './support/topology';

/** Account A's sessions: more than a dispatcher's 64 parallel POSTs, as in issue 29 (72). */
const HUNG_SESSIONS = 72;
/** B's deliveries timed with A idle, then with A hung. */
const SAMPLES = 3;

/**
 * A receiver that accepts every connection and request and never answers: only the
 * dispatcher's own deadline ends a POST to it (it then closes the connection, seen here).
 */
class HungReceiver {
  readonly requests: number[] = [];
  /** When each connection the dispatcher opened was closed (its attempt given up). */
  readonly closed: number[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<HungReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new HungReceiver(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/hangs`,
    );
    server.on('connection', (socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => {
        receiver.sockets.delete(socket);
        receiver.closed.push(Date.now());
      });
    });
    server.on('request', (request) => {
      request.resume();
      receiver.requests.push(Date.now());
    });
    return receiver;
  }

  async waitForRequests(count: number, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count && Date.now() < deadline) await sleep(50);
    if (this.requests.length < count)
      throw new Error(`hung receiver saw ${this.requests.length} of ${count} requests`);
  }

  /** Cuts every connection, so the dispatcher's remaining attempts end at once. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

/**
 * Issue 29, finding 2: one account's receiver that hangs, with more sessions than a dispatcher
 * posts to at once, must not delay another account's deliveries. B's delivery latency is
 * measured with A idle, then while every one of A's POSTs hangs; B must arrive before the first
 * of A's attempts is given up, within its normal latency.
 */
function describeFairness(start: () => Promise<Topology>): void {
  let topology: Topology;
  let api: ApiClient;
  let hung: HungReceiver;
  let live: RecordingReceiver;

  beforeAll(async () => {
    [topology, hung, live] = await Promise.all([start(), HungReceiver.start(), RecordingReceiver.start()]);
    api = topology.gateways[0]!;
  });
  afterAll(async () => {
    // The hung connections are cut first, so the dispatcher has nothing in hand when it stops.
    await hung?.close();
    await live?.close();
    await topology?.stop();
  });

  async function subscribe(account: TestAccount, url: string): Promise<void> {
    const saved = await api.patch('/api/v1/webhook', { key: account.key, body: { url } });
    expect(saved.status).toBe(200);
  }

  async function inbound(account: TestAccount, sessionId: string, text: string): Promise<string> {
    const sent = await api.post('/api/v1/sandbox/inbound', {
      key: account.key,
      body: { sessionId, from: '254722300000', text },
    });
    expect(sent.status).toBe(200);
    return sent.body.data.id;
  }

  /** One of B's messages, from the inbound request to its arrival at B's receiver (ms). */
  async function deliveryLatency(
    b: TestAccount,
    text: string,
  ): Promise<{ latency: number; arrivedAt: number }> {
    const sentAt = Date.now();
    const id = await inbound(b, 'default', text);
    const deadline = Date.now() + 30_000;
    let arrived = live.at('/b').find((request) => request.json?.message?.id === id);
    while (!arrived && Date.now() < deadline) {
      await sleep(20);
      arrived = live.at('/b').find((request) => request.json?.message?.id === id);
    }
    if (!arrived) throw new Error(`B's message ${text} was not delivered in 30 s`);
    return { latency: arrived.receivedAt - sentAt, arrivedAt: arrived.receivedAt };
  }

  it("delivers account B within its normal latency while every one of account A's POSTs hangs", async () => {
    const a = await createAccount(api, topology.adminToken, { maxSessions: HUNG_SESSIONS });
    const b = await createAccount(api, topology.adminToken, { maxSessions: 1 });
    const aSessions = Array.from({ length: HUNG_SESSIONS }, (_, i) => `a-${i}`);
    await inParallel(aSessions, 16, async (sessionId) => void (await linkSession(api, a.key, sessionId)));
    await linkSession(api, b.key, 'default');
    await subscribe(a, hung.url);
    await subscribe(b, `${live.url}/b`);

    // Baseline: B's latency while A is idle.
    const idle: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) idle.push((await deliveryLatency(b, `idle ${i}`)).latency);

    // One message per session of A: every POST hangs. Once A's receiver holds as many as A may
    // have open (32 connections), A's other sessions are waiting in the dispatcher.
    await inParallel(aSessions, 16, async (sessionId) => void (await inbound(a, sessionId, 'hello')));
    await hung.waitForRequests(32);

    const whileHung: number[] = [];
    let lastArrival = 0;
    for (let i = 0; i < SAMPLES; i += 1) {
      const { latency, arrivedAt } = await deliveryLatency(b, `while A hangs ${i}`);
      whileHung.push(latency);
      lastArrival = arrivedAt;
    }
    const firstGiveUp = hung.closed[0];
    console.log(
      [
        `${topology.name}: account B's delivery latency (inbound request to B's receiver)`,
        `  A idle:                             ${idle.join(', ')} ms`,
        `  A's ${HUNG_SESSIONS} sessions hung (${hung.requests.length} POSTs open): ${whileHung.join(', ')} ms`,
        `  A's first attempt given up ${firstGiveUp === undefined ? 'not yet' : `${firstGiveUp - hung.requests[0]!} ms after it reached A's receiver`}`,
      ].join('\n'),
    );

    // B arrived while every one of A's POSTs was still unanswered and open …
    expect(firstGiveUp === undefined || lastArrival < firstGiveUp).toBe(true);
    // … A never held more than its share of the dispatcher's POSTs …
    expect(hung.requests.length).toBe(32);
    // … and B's latency stayed of the order of its latency with A idle.
    expect(Math.max(...whileHung)).toBeLessThan(5 * Math.max(...idle) + 1_000);
  });
}

describe('webhook fairness, all-in-one: a hung receiver of one account never holds up another', () => {
  describeFairness(() => startAllInOne({ JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }));
});

describe('webhook fairness, distributed (1 gateway, 1 worker, 1 dispatcher)', () => {
  describeFairness(() =>
    startDistributed(1, { JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }, 1, { dispatchers: 1 }),
  );
});
