import { randomUUID } from 'node:crypto';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { InboundEventRepository } from './inbound-event.repository';
import { createAccount } from './test-support/fixtures';
import { type DeliveryRecord, WebhookDeliveryRepository } from './webhook-delivery.repository';

/** The dispatcher's batched write: attempts recorded and events leaving the all-in-one log together. */
describe('WebhookDeliveryRepository.recordBatch', () => {
  let db: MigratedTestDatabase;
  let deliveries: WebhookDeliveryRepository;
  let log: InboundEventRepository;
  let shard = 100;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    deliveries = new WebhookDeliveryRepository(db.dataSource);
    log = new InboundEventRepository(db.dataSource);
  });
  afterAll(() => db.close());

  const attempt = (accountId: string, eventId: string, overrides: Partial<DeliveryRecord> = {}) => ({
    id: randomUUID(),
    accountId,
    eventId,
    event: 'message.received',
    sessionId: 'main',
    url: 'https://hooks.example.test/in',
    status: 'success' as const,
    statusCode: 200,
    error: null,
    response: 'ok',
    durationMs: 7,
    payload: { event: 'message.received', message: { id: eventId } },
    createdAt: new Date('2030-01-01T10:00:00.000Z'),
    attemptedAt: new Date('2030-01-01T10:00:01.000Z'),
    attempt: 1,
    requestId: null,
    ...overrides,
  });

  /** Events stored in a shard of their own, as the all-in-one log holds them until delivered. */
  async function logged(count: number): Promise<{ shard: number; ids: string[] }> {
    shard += 1;
    const ids = Array.from({ length: count }, () => `evt-${randomUUID()}`);
    for (const eventId of ids) {
      await log.append({ eventId, shard, subject: `jumbe.v1.events.${shard}.a.main`, payload: {} });
    }
    return { shard, ids };
  }

  const pendingIds = async (shardNumber: number) =>
    (await log.pending(shardNumber)).map((event) => event.eventId);

  it('records every attempt of the batch and removes all its events from the log', async () => {
    const account = await createAccount(db.dataSource);
    const { shard: s, ids } = await logged(4);
    const [sent1, sent2, notSent, elsewhere] = ids as [string, string, string, string];
    const records = [attempt(account, sent1), attempt(account, sent2, { status: 'failed', statusCode: 500 })];

    // `notSent` had nothing to send (no enabled webhook): it leaves the log without a record.
    await deliveries.recordBatch(records, [sent1, sent2, notSent]);

    expect(await pendingIds(s)).toEqual([elsewhere]);
    expect(await deliveries.find(account, records[1]!.id)).toEqual(records[1]);
    expect(await deliveries.recordedAmong([sent1, sent2, notSent, elsewhere])).toEqual(
      new Set([sent1, sent2]),
    );
  });

  it('stores every field as given: nulls, quotes, backslashes, emoji, a NUL made storable', async () => {
    const account = await createAccount(db.dataSource);
    const { ids } = await logged(2);
    const [failed, sent] = ids as [string, string];
    const text = 'say "hi" \\ back\\slash 😀 Habari ✓ line\nbreak';
    const records = [
      attempt(account, failed, {
        status: 'failed',
        statusCode: null,
        error: 'connection refused: "no"',
        response: null,
        durationMs: 0,
        attempt: 3,
        payload: { event: 'message.received', message: { text, nested: [1, null, { k: 'v' }] } },
      }),
      attempt(account, sent, { response: 'nul\u0000here', requestId: 'req-"1"' }),
    ];

    await deliveries.recordBatch(records, [failed, sent]);

    expect(await deliveries.find(account, records[0]!.id)).toEqual(records[0]);
    expect(await deliveries.find(account, records[1]!.id)).toEqual({
      ...records[1],
      response: 'nul\uFFFDhere',
    });
  });

  it('keeps the first record of an event recorded before, or twice in one batch', async () => {
    const account = await createAccount(db.dataSource);
    const first = attempt(account, 'evt-batch-once');
    await deliveries.recordBatch([first], ['evt-batch-once']);

    const again = attempt(account, 'evt-batch-once', { status: 'failed', statusCode: 503 });
    const twiceA = attempt(account, 'evt-batch-twice');
    const twiceB = attempt(account, 'evt-batch-twice', { status: 'failed' });
    await deliveries.recordBatch([again, twiceA, twiceB], ['evt-batch-once', 'evt-batch-twice']);

    const recorded = await deliveries.latest(account, 10);
    expect(recorded.map((record) => record.id).sort()).toEqual([first.id, twiceA.id].sort());
  });

  it('writes nothing and removes nothing when the database refuses one record of the batch', async () => {
    const account = await createAccount(db.dataSource);
    const { shard: s, ids } = await logged(2);
    const [good, refused] = ids as [string, string];
    // An account deleted meanwhile: its record breaks a foreign key, and the whole statement fails.
    const records = [attempt(account, good), attempt(randomUUID(), refused)];

    await expect(deliveries.recordBatch(records, [good, refused])).rejects.toThrow(/foreign key/);

    expect(await pendingIds(s)).toEqual([good, refused]);
    expect(await deliveries.recordedAmong([good, refused])).toEqual(new Set());
  });

  it('settles an empty batch without error', async () => {
    await expect(deliveries.recordBatch([], [])).resolves.toBeUndefined();
    expect(await deliveries.recordedAmong([])).toEqual(new Set());
  });
});
