import { randomUUID } from 'node:crypto';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { createAccount } from './test-support/fixtures';
import { type DeliveryRecord, WebhookDeliveryRepository } from './webhook-delivery.repository';

describe('WebhookDeliveryRepository', () => {
  let db: MigratedTestDatabase;
  let deliveries: WebhookDeliveryRepository;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    deliveries = new WebhookDeliveryRepository(db.dataSource);
  });
  afterAll(() => db.close());

  const delivery = (accountId: string, overrides: Partial<DeliveryRecord> = {}): DeliveryRecord => ({
    id: randomUUID(),
    accountId,
    eventId: `evt-${randomUUID()}`,
    event: 'message.received',
    sessionId: 'main',
    url: 'https://hooks.example.test/in',
    status: 'success',
    statusCode: 200,
    error: null,
    response: 'ok',
    durationMs: 42,
    payload: { event: 'message.received', message: { id: 'M1', text: 'hi' } },
    createdAt: new Date('2030-01-01T10:00:00.000Z'),
    attemptedAt: new Date('2030-01-01T10:00:01.000Z'),
    attempt: 1,
    requestId: null,
    ...overrides,
  });

  it('records an attempt and finds it back as recorded', async () => {
    const account = await createAccount(db.dataSource);
    const attempt = delivery(account, {
      status: 'failed',
      statusCode: null,
      error: 'connect ECONNREFUSED',
      response: null,
    });
    expect(await deliveries.record(attempt)).toBe(true);
    expect(await deliveries.find(account, attempt.id)).toEqual(attempt);
    expect(await deliveries.isRecorded(attempt.eventId!)).toBe(true);
    expect(await deliveries.isRecorded('evt-never')).toBe(false);
  });

  it('keeps the request id of the API call that asked for a delivery', async () => {
    const account = await createAccount(db.dataSource);
    const test = delivery(account, { eventId: null, event: 'webhook.test', requestId: 'req-test-1' });
    expect(await deliveries.record(test)).toBe(true);
    expect((await deliveries.find(account, test.id))?.requestId).toBe('req-test-1');
  });

  it('records an event once: a second attempt with the same event id returns false and is not stored', async () => {
    const account = await createAccount(db.dataSource);
    const first = delivery(account, { eventId: 'evt-dup' });
    const second = delivery(account, { eventId: 'evt-dup', status: 'failed', statusCode: 500 });

    expect(await deliveries.record(first)).toBe(true);
    expect(await deliveries.record(second)).toBe(false);
    expect(await deliveries.find(account, second.id)).toBeNull();
    expect((await deliveries.latest(account, 10)).map((d) => d.id)).toEqual([first.id]);
  });

  it('records each retry of an event under its delivery id as its own entry, once per attempt number', async () => {
    const account = await createAccount(db.dataSource);
    const eventId = `evt-${randomUUID()}`;
    const id = randomUUID();
    const at = (second: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, second));
    const first = delivery(account, { id, eventId, status: 'failed', statusCode: 503, attemptedAt: at(1) });
    const retry = delivery(account, { id, eventId, attempt: 2, attemptedAt: at(31) });
    expect(await deliveries.record(first)).toBe(true);
    await deliveries.recordBatch([retry, { ...retry, status: 'failed' }], []);
    expect(await deliveries.record({ ...first, status: 'success' })).toBe(false);

    expect((await deliveries.latest(account, 10)).map((d) => [d.id, d.attempt, d.status])).toEqual([
      [id, 2, 'success'],
      [id, 1, 'failed'],
    ]);
    // A redelivery by hand starts from the latest attempt's event.
    expect((await deliveries.find(account, id))?.attempt).toBe(2);
    expect(await deliveries.lastAttemptsAmong([eventId, 'evt-never'])).toEqual(
      new Map([[eventId, { attempt: 2, status: 'success', attemptedAt: at(31) }]]),
    );
  });

  it('records any number of attempts without an event id (tests, redeliveries)', async () => {
    const account = await createAccount(db.dataSource);
    expect(await deliveries.record(delivery(account, { eventId: null, event: 'test' }))).toBe(true);
    expect(await deliveries.record(delivery(account, { eventId: null, event: 'test' }))).toBe(true);
    expect(await deliveries.latest(account, 10)).toHaveLength(2);
  });

  it('lists the newest attempts first, up to the limit', async () => {
    const account = await createAccount(db.dataSource);
    const at = (second: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, second));
    const middle = delivery(account, { attemptedAt: at(20) });
    const oldest = delivery(account, { attemptedAt: at(10) });
    const newest = delivery(account, { attemptedAt: at(30) });
    for (const attempt of [middle, oldest, newest]) await deliveries.record(attempt);

    expect((await deliveries.latest(account, 20)).map((d) => d.id)).toEqual([
      newest.id,
      middle.id,
      oldest.id,
    ]);
    expect((await deliveries.latest(account, 2)).map((d) => d.id)).toEqual([newest.id, middle.id]);
  });

  it("never shows one account's deliveries to another", async () => {
    const alice = await createAccount(db.dataSource);
    const bob = await createAccount(db.dataSource);
    const attempt = delivery(alice);
    await deliveries.record(attempt);

    expect(await deliveries.find(bob, attempt.id)).toBeNull();
    expect(await deliveries.latest(bob, 20)).toEqual([]);
    expect(await deliveries.find(alice, attempt.id)).not.toBeNull();
  });

  it('answers null or empty for malformed and unknown ids', async () => {
    const account = await createAccount(db.dataSource);
    expect(await deliveries.find(account, 'not-a-uuid')).toBeNull();
    expect(await deliveries.find('not-a-uuid', randomUUID())).toBeNull();
    expect(await deliveries.find(account, randomUUID())).toBeNull();
    expect(await deliveries.latest('not-a-uuid', 20)).toEqual([]);
  });
});
