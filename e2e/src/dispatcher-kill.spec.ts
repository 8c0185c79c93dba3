import { EVENT_STREAM_NAME } from '@jumbe/contracts';
import { shardOf } from '@jumbe/domain';
import { type ApiClient, RecordingReceiver, ServiceProcess } from '@jumbe/testing';
import { connect } from 'nats';
import { randomInt } from 'node:crypto';
import { createAccount, type TestAccount } from './support/operator';
import { eventually, linkSession } from './support/sandbox-helpers';
import { type DistributedTopology, NATS_URL, startDistributed } from './support/topology';

const TOTAL = 1_000;
const CONCURRENCY = 20;
const KILL_AFTER_RECEIVED = 300;
const PATH = '/kill';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work(i)` for i in [0, count) with at most `limit` running at once. */
async function boundedConcurrency(
  count: number,
  limit: number,
  work: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < count) {
        const i = next;
        next += 1;
        await work(i);
      }
    }),
  );
}

/** The JetStream consumer of the session's shard, as NATS sees it (for the test's report). */
async function shardConsumerState(deployment: string, shard: number): Promise<string> {
  const connection = await connect({ servers: NATS_URL });
  try {
    const stream = `${EVENT_STREAM_NAME}_${deployment.toUpperCase().replace(/-/g, '_')}`;
    const info = await (await connection.jetstreamManager()).consumers.info(stream, `dispatch-${shard}`);
    return JSON.stringify({
      ackWaitMs: (info.config.ack_wait ?? 0) / 1e6,
      numPending: info.num_pending,
      numAckPending: info.num_ack_pending,
      numRedelivered: info.num_redelivered,
      delivered: info.delivered.consumer_seq,
      ackFloor: info.ack_floor.consumer_seq,
    });
  } finally {
    await connection.close();
  }
}

/**
 * Spec "Durable delivery" / issue 4 "Done when": a dispatcher SIGKILLed in the middle of a burst of
 * 1,000 inbound events loses none of them once another dispatcher is started; an event delivered
 * twice carries the same delivery id both times.
 */
describe('distributed: webhook dispatcher SIGKILLed mid-burst', () => {
  let topology: DistributedTopology;
  let api: ApiClient;
  let receiver: RecordingReceiver;
  let account: TestAccount;

  beforeAll(async () => {
    topology = await startDistributed(1, { JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' }, 1, { dispatchers: 1 });
    api = topology.gateways[0]!;
    receiver = await RecordingReceiver.start();
    // A healthy receiver that takes a little while to answer (0–20 ms), as a real one would.
    receiver.on(PATH, (_request, response) => {
      setTimeout(() => response.end('ok'), randomInt(0, 21));
    });
    account = await createAccount(api, topology.adminToken);
    await linkSession(api, account.key);
    const saved = await api.patch('/api/v1/webhook', {
      key: account.key,
      body: { url: `${receiver.url}${PATH}` },
    });
    expect(saved.status).toBe(200);
  });
  afterAll(async () => {
    await receiver?.close();
    await topology?.stop();
  });

  it('delivers every one of 1,000 events, duplicates only under the same delivery id', async () => {
    const started = Date.now();
    const sentIds: string[] = new Array(TOTAL);
    const failures: string[] = [];
    let killedAt: number | null = null;
    let restartedAt: number | null = null;
    let receivedAtKill = 0;
    let replacement: ServiceProcess | null = null;
    let shardsTakenAt: number | null = null;
    let lateId = '';

    // The killer: waits until ~300 deliveries have arrived, SIGKILLs the dispatcher, starts another.
    const killer = (async () => {
      const deadline = Date.now() + 60_000;
      while (receiver.at(PATH).length < KILL_AFTER_RECEIVED && Date.now() < deadline) await sleep(5);
      const victim = topology.dispatchers[0]!;
      receivedAtKill = receiver.at(PATH).length;
      if (receivedAtKill < KILL_AFTER_RECEIVED)
        console.log(
          `only ${receivedAtKill} received before the kill; dispatcher log:\n${victim.logs().slice(-6_000)}`,
        );
      killedAt = Date.now();
      await victim.stop('SIGKILL');
      replacement = await ServiceProcess.start('webhook-dispatcher', topology.env, { name: 'dispatcher-2' });
      // topology.stop() stops every process in this list, the replacement included.
      topology.processes.push(replacement);
      restartedAt = Date.now();
      // Once it serves every shard, one more event: does it wait for the older ones, as order requires?
      while (!/"shardsHeld":64/.test(replacement.logs()) && Date.now() < deadline) await sleep(50);
      shardsTakenAt = Date.now();
      const late = await api.post('/api/v1/sandbox/inbound', {
        key: account.key,
        body: { from: '254722100000', text: 'after the restart' },
      });
      expect(late.status).toBe(200);
      lateId = late.body.data.id;
    })();

    await boundedConcurrency(TOTAL, CONCURRENCY, async (i) => {
      const sent = await api.post('/api/v1/sandbox/inbound', {
        key: account.key,
        body: { from: '254722100000', text: `burst ${i}` },
      });
      if (sent.status !== 200) failures.push(`${i}: ${sent.status} ${sent.text}`);
      else sentIds[i] = sent.body.data.id;
    });
    const burstDoneAt = Date.now();
    expect(failures).toEqual([]);
    await killer;
    expect(killedAt).not.toBeNull();

    // Every message id arrives at least once; bounded wait well within the suite's budget.
    const expected = new Set(sentIds);
    expect(expected.size).toBe(TOTAL);
    expect(lateId).not.toBe('');
    const arrivedIds = () => new Set(receiver.at(PATH).map((request) => request.json?.message?.id as string));
    const deadline = Date.now() + 60_000;
    let allArrivedAt: number | null = null;
    while (Date.now() < deadline) {
      const arrived = arrivedIds();
      if (arrived.has(lateId) && [...expected].every((id) => arrived.has(id))) {
        allArrivedAt = Date.now();
        break;
      }
      await sleep(100);
    }

    const requests = receiver.at(PATH);
    const afterKill = requests.filter((request) => request.receivedAt > killedAt!);
    const firstAfterKill = afterKill.length > 0 ? afterKill[0]!.receivedAt : null;
    const arrived = arrivedIds();
    const missing = [...expected].filter((id) => !arrived.has(id));
    // How many of the burst's events the later event overtook (one session's events should stay in order).
    const lateIndex = requests.findIndex((request) => request.json?.message?.id === lateId);
    const beforeLate = new Set(
      requests.slice(0, Math.max(lateIndex, 0)).map((request) => request.json.message.id),
    );
    const overtaken = lateIndex < 0 ? null : [...expected].filter((id) => !beforeLate.has(id)).length;
    const consumer = await shardConsumerState(topology.deployment, shardOf(account.accountId, 'default'));

    // Group by message id: every copy of one message carries one delivery id (header and body agree).
    const deliveryIdsByMessage = new Map<string, Set<string>>();
    for (const request of requests) {
      expect(request.json.deliveryId).toBe(request.headers['x-service-delivery']);
      const ids = deliveryIdsByMessage.get(request.json.message.id) ?? new Set<string>();
      ids.add(request.headers['x-service-delivery'] as string);
      deliveryIdsByMessage.set(request.json.message.id, ids);
    }
    const conflicting = [...deliveryIdsByMessage].filter(([, ids]) => ids.size !== 1).map(([id]) => id);
    const duplicates = requests.length - deliveryIdsByMessage.size;

    console.log(
      [
        `dispatcher kill test: ${TOTAL} burst events + 1 after the restart; ${requests.length} requests received, ${duplicates} duplicate(s)`,
        `  burst sent in ${burstDoneAt - started} ms; dispatcher SIGKILLed after ${receivedAtKill} had been received, at +${killedAt! - started} ms`,
        `  replacement dispatcher listening ${restartedAt! - killedAt!} ms after the kill, serving all 64 shards after ${shardsTakenAt! - killedAt!} ms`,
        `  first delivery after the kill: ${firstAfterKill === null ? 'none' : `${firstAfterKill - killedAt!} ms after it`}`,
        `  every event delivered: ${allArrivedAt === null ? `NO, ${missing.length} of the burst still missing after ${deadline - killedAt!} ms` : `${allArrivedAt - killedAt!} ms after the kill`}`,
        `  the event sent after the restart ${overtaken === null ? 'never arrived' : `arrived ahead of ${overtaken} older burst event(s)`}`,
        `  shard consumer: ${consumer}`,
        `  total ${Date.now() - started} ms`,
      ].join('\n'),
    );

    // Duplicates only ever carry the delivery id of the first attempt; nothing unknown arrives.
    expect(conflicting).toEqual([]);
    expect(
      requests.every(
        (request) => expected.has(request.json.message.id) || request.json.message.id === lateId,
      ),
    ).toBe(true);

    // The deliveries are recorded and listed (newest 20) by GET /webhook.
    const listed = await eventually(
      () => api.get('/api/v1/webhook', { key: account.key }),
      (response) => response.body?.data?.deliveries?.length === 20,
      10_000,
    );
    expect(listed.body.data.deliveries).toHaveLength(20);
    for (const delivery of listed.body.data.deliveries) {
      expect(delivery).toMatchObject({
        event: 'message.received',
        status: 'success',
        statusCode: 200,
        response: 'ok',
      });
    }

    // One session's events stay in order across the take-over: the event sent after the restart
    // comes after every older one.
    expect(overtaken).toBe(0);
    // Nothing lost: the events the killed dispatcher had pulled but not acknowledged are offered to
    // the replacement at once (it recreates the shard's consumer on take-over), not after the
    // consumer's 120 s ack wait, which is what this deadline would catch.
    expect({ missing: missing.length, firstMissing: missing.slice(0, 5) }).toEqual({
      missing: 0,
      firstMissing: [],
    });
  });
});
