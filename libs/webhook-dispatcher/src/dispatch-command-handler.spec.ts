import { type CommandReply, deliveryView } from '@jumbe/contracts';
import { deliveryIdForEvent } from '@jumbe/domain';
import type { WebhookDeliveryRepository } from '@jumbe/persistence';
import { REQUEST_ID_HEADER } from '@jumbe/telemetry';
import type { RecordingReceiver } from '@jumbe/testing';
import { verifyDelivery } from '@jumbe/webhook-receiver';
import pino from 'pino';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DispatchCommandHandler } from './dispatch-command-handler';
import { DispatcherTestBed } from './test-support/dispatcher-test-bed';
import { WebhookPoster } from './webhook-poster';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Delivery = ReturnType<typeof deliveryView>;

/** The delivery of an ok reply (fails the test on an error reply). */
function deliveryOf(reply: CommandReply): Delivery {
  if (!reply.ok) throw new Error(`expected an ok reply, got ${reply.error.code}: ${reply.error.message}`);
  return (reply.result as { delivery: Delivery }).delivery;
}

function errorOf(reply: CommandReply): { code: string; message: string } {
  if (reply.ok) throw new Error('expected an error reply');
  return reply.error;
}

describe('DispatchCommandHandler', () => {
  let bed: DispatcherTestBed;
  let receiver: RecordingReceiver;
  let deliveries: WebhookDeliveryRepository;
  let handler: DispatchCommandHandler;
  const poster = new WebhookPoster(true);

  beforeAll(async () => {
    bed = await DispatcherTestBed.open('dispatch-command-secret-key-0123456789');
    ({ receiver, deliveries } = bed);
    handler = new DispatchCommandHandler(bed.directory, poster, deliveries, pino({ level: 'silent' }));
  });
  afterAll(() => bed.close());

  const createAccount = () => bed.createAccount('Command test');
  /** `announce` false: saved without publishing the invalidation. */
  const saveWebhook = (accountId: string, url: string, enabled = true, announce = true) =>
    bed.saveWebhook(accountId, url, { enabled, announce });

  async function subscribedAccount(): Promise<{
    accountId: string;
    path: string;
    url: string;
    secret: string;
  }> {
    const accountId = await createAccount();
    const path = `/hooks/${accountId}`;
    const url = `${receiver.url}${path}`;
    return { accountId, path, url, secret: await saveWebhook(accountId, url) };
  }

  /** A delivery of a stream event, made and recorded as the event dispatcher does. */
  async function recordedEventDelivery(accountId: string, url: string, secret: string) {
    const eventId = `${accountId}:main:MSG-${randomUUID()}`;
    const record = await poster.post({
      accountId,
      eventId,
      deliveryId: deliveryIdForEvent(eventId),
      url,
      secret,
      payload: {
        event: 'message.received',
        timestamp: '2030-01-01T12:00:00.000Z',
        customerId: accountId,
        sessionId: 'main',
        message: { id: 'MSG1', from: '254712345678', text: 'Habari', replyTo: '254712345678@s.whatsapp.net' },
      },
    });
    await deliveries.record(record);
    return record;
  }

  describe('webhook.test', () => {
    it('records the request id of the API call that asked for it', async () => {
      const { accountId } = await subscribedAccount();
      const delivery = deliveryOf(
        await handler.handle(
          { v: 1, type: 'webhook.test', accountId },
          { headers: { [REQUEST_ID_HEADER]: 'req-test-9' } },
        ),
      );
      expect((await deliveries.find(accountId, delivery.id))?.requestId).toBe('req-test-9');
    });

    it('POSTs a signed test event, records the delivery and returns it', async () => {
      const { accountId, path, url, secret } = await subscribedAccount();

      const delivery = deliveryOf(await handler.handle({ v: 1, type: 'webhook.test', accountId }));

      expect(delivery).toMatchObject({
        event: 'webhook.test',
        sessionId: 'default',
        url,
        status: 'success',
        statusCode: 200,
        error: null,
        response: 'ok',
      });
      expect(delivery.id).toMatch(UUID_V4);

      const [request] = receiver.at(path);
      expect(receiver.at(path)).toHaveLength(1);
      const verified = verifyDelivery({ body: request!.raw, headers: request!.headers, secret });
      expect(verified.deliveryId).toBe(delivery.id);
      expect(verified.event).toBe('webhook.test');
      expect(verified.payload).toMatchObject({
        event: 'webhook.test',
        deliveryId: delivery.id,
        customerId: accountId,
        sessionId: 'default',
        data: { message: expect.stringContaining('test event') },
      });
      // The Standard Webhooks signature verifies with the reference library too.
      expect(new Webhook(secret).verify(request!.raw.toString('utf8'), request!.headers as any)).toEqual(
        request!.json,
      );

      const stored = await deliveries.find(accountId, delivery.id);
      expect(stored).toMatchObject({ accountId, eventId: null, payload: request!.json });
      expect(deliveryView(stored!)).toEqual(delivery);
    });

    it('posts to the full URL of a webhook with a token, and records and returns it masked', async () => {
      const accountId = await createAccount();
      const path = `/tokened-${accountId}?token=tok_${accountId}&v=2`;
      const secret = await saveWebhook(accountId, `${receiver.url}${path}`);

      const delivery = deliveryOf(await handler.handle({ v: 1, type: 'webhook.test', accountId }));

      expect(delivery.url).toBe(`${receiver.url}/tokened-${accountId}?token=****&v=****`);
      const [request] = receiver.at(path);
      expect(verifyDelivery({ body: request!.raw, headers: request!.headers, secret }).deliveryId).toBe(
        delivery.id,
      );
      const [row] = (await bed.db.dataSource.query(`SELECT * FROM webhook_deliveries WHERE id = $1`, [
        delivery.id,
      ])) as [Record<string, unknown>];
      expect(JSON.stringify(row)).not.toContain(`tok_${accountId}`);
    });

    it('records and returns a failed test delivery when the receiver answers an error', async () => {
      const { accountId, path } = await subscribedAccount();
      receiver.on(path, (_request, response) => {
        response.statusCode = 503;
        response.end('down for maintenance');
      });

      const delivery = deliveryOf(await handler.handle({ v: 1, type: 'webhook.test', accountId }));

      expect(delivery).toMatchObject({
        status: 'failed',
        statusCode: 503,
        error: 'receiver answered 503',
        response: 'down for maintenance',
      });
      expect(deliveryView((await deliveries.find(accountId, delivery.id))!)).toEqual(delivery);
    });

    it('gives every test its own delivery id', async () => {
      const { accountId } = await subscribedAccount();
      const first = deliveryOf(await handler.handle({ v: 1, type: 'webhook.test', accountId }));
      const second = deliveryOf(await handler.handle({ v: 1, type: 'webhook.test', accountId }));
      expect(second.id).not.toBe(first.id);
      expect((await deliveries.latest(accountId, 10)).map((d) => d.id).sort()).toEqual(
        [first.id, second.id].sort(),
      );
    });

    it('uses a webhook saved a moment ago, whatever the directory has cached', async () => {
      const accountId = await createAccount();
      await saveWebhook(accountId, `${receiver.url}/old-${accountId}`, false);
      expect(await bed.directory.get(accountId)).toMatchObject({ enabled: false }); // now cached
      const path = `/new-${accountId}`;
      // Saved without the invalidation reaching this dispatcher (yet).
      const secret = await saveWebhook(accountId, `${receiver.url}${path}`, true, false);

      const delivery = deliveryOf(await handler.handle({ v: 1, type: 'webhook.test', accountId }));

      expect(delivery.url).toBe(`${receiver.url}${path}`);
      const [request] = receiver.at(path);
      expect(verifyDelivery({ body: request!.raw, headers: request!.headers, secret }).deliveryId).toBe(
        delivery.id,
      );
    });
  });

  describe('webhook.redeliver', () => {
    it('delivers the recorded event body again under a new delivery id, and records it', async () => {
      const { accountId, path, url, secret } = await subscribedAccount();
      const original = await recordedEventDelivery(accountId, url, secret);

      const delivery = deliveryOf(
        await handler.handle({ v: 1, type: 'webhook.redeliver', accountId, deliveryId: original.id }),
      );

      expect(delivery.id).toMatch(UUID_V4);
      expect(delivery.id).not.toBe(original.id);
      expect(delivery).toMatchObject({
        event: 'message.received',
        sessionId: 'main',
        url,
        status: 'success',
      });

      const requests = receiver.at(path);
      expect(requests).toHaveLength(2);
      const again = requests[1]!;
      expect(again.headers['x-service-delivery']).toBe(delivery.id);
      const verified = verifyDelivery({ body: again.raw, headers: again.headers, secret });
      expect(verified.payload).toEqual({ ...(original.payload as object), deliveryId: delivery.id });
      expect(again.json).toEqual({ ...requests[0]!.json, deliveryId: delivery.id });

      expect(await deliveries.find(accountId, delivery.id)).toMatchObject({
        eventId: null,
        event: 'message.received',
        payload: { ...(original.payload as object), deliveryId: delivery.id },
        createdAt: original.createdAt,
      });
      expect(await deliveries.find(accountId, original.id)).toEqual({ ...original, requestId: null });
    });

    it('can redeliver a redelivery, keeping the same event body', async () => {
      const { accountId, path, url, secret } = await subscribedAccount();
      const original = await recordedEventDelivery(accountId, url, secret);
      const first = deliveryOf(
        await handler.handle({ v: 1, type: 'webhook.redeliver', accountId, deliveryId: original.id }),
      );
      const second = deliveryOf(
        await handler.handle({ v: 1, type: 'webhook.redeliver', accountId, deliveryId: first.id }),
      );

      expect(new Set([original.id, first.id, second.id]).size).toBe(3);
      const bodies = receiver.at(path).map(({ json }) => {
        const { deliveryId: _ignored, ...rest } = json;
        return rest;
      });
      expect(bodies).toHaveLength(3);
      expect(bodies[1]).toEqual(bodies[0]);
      expect(bodies[2]).toEqual(bodies[0]);
    });

    it("answers not_found for another account's delivery id, without a request", async () => {
      const owner = await subscribedAccount();
      const original = await recordedEventDelivery(owner.accountId, owner.url, owner.secret);
      const other = await subscribedAccount();

      const reply = await handler.handle({
        v: 1,
        type: 'webhook.redeliver',
        accountId: other.accountId,
        deliveryId: original.id,
      });

      expect(errorOf(reply).code).toBe('not_found');
      expect(receiver.at(other.path)).toEqual([]);
      expect(receiver.at(owner.path)).toHaveLength(1);
      expect(await deliveries.latest(other.accountId, 10)).toEqual([]);
    });

    it.each(['00000000-0000-4000-8000-000000000000', 'not-a-uuid'])(
      'answers not_found for an unknown delivery id (%s)',
      async (deliveryId) => {
        const { accountId, path } = await subscribedAccount();
        const reply = await handler.handle({ v: 1, type: 'webhook.redeliver', accountId, deliveryId });
        expect(errorOf(reply).code).toBe('not_found');
        expect(receiver.at(path)).toEqual([]);
      },
    );

    it('answers conflict for a delivery recorded without its body, without a request or a record', async () => {
      const { accountId, path, url, secret } = await subscribedAccount();
      const original = await recordedEventDelivery(accountId, url, secret);
      // As the recorder keeps an attempt whose payload the database refused (delivery-recorder).
      const bodiless = { ...original, id: randomUUID(), eventId: null, payload: { unrecordable: true } };
      await deliveries.record(bodiless);

      const reply = await handler.handle({
        v: 1,
        type: 'webhook.redeliver',
        accountId,
        deliveryId: bodiless.id,
      });

      expect(errorOf(reply).code).toBe('conflict');
      expect(receiver.at(path)).toHaveLength(1);
      expect((await deliveries.latest(accountId, 10)).map((d) => d.id).sort()).toEqual(
        [original.id, bodiless.id].sort(),
      );
    });

    it('answers webhook_not_enabled once the webhook is disabled, without a request or a record', async () => {
      const { accountId, path, url, secret } = await subscribedAccount();
      const original = await recordedEventDelivery(accountId, url, secret);
      await saveWebhook(accountId, url, false);

      const reply = await handler.handle({
        v: 1,
        type: 'webhook.redeliver',
        accountId,
        deliveryId: original.id,
      });

      expect(errorOf(reply).code).toBe('webhook_not_enabled');
      expect(receiver.at(path)).toHaveLength(1);
      expect((await deliveries.latest(accountId, 10)).map((d) => d.id)).toEqual([original.id]);
    });
  });

  describe('without an enabled webhook', () => {
    it('answers webhook_not_enabled for an account with no webhook', async () => {
      const accountId = await createAccount();
      const reply = await handler.handle({ v: 1, type: 'webhook.test', accountId });
      expect(errorOf(reply)).toEqual({
        code: 'webhook_not_enabled',
        message: expect.stringContaining('PATCH'),
      });
      expect(await deliveries.latest(accountId, 10)).toEqual([]);
    });

    it('answers webhook_not_enabled for a disabled webhook, without a request', async () => {
      const accountId = await createAccount();
      const path = `/disabled-${accountId}`;
      await saveWebhook(accountId, `${receiver.url}${path}`, false);
      const reply = await handler.handle({ v: 1, type: 'webhook.test', accountId });
      expect(errorOf(reply).code).toBe('webhook_not_enabled');
      expect(receiver.at(path)).toEqual([]);
      expect(await deliveries.latest(accountId, 10)).toEqual([]);
    });
  });

  describe('malformed commands', () => {
    it.each([
      ['nothing', undefined],
      ['null', null],
      ['an empty object', {}],
      ['another version', { v: 2, type: 'webhook.test', accountId: randomUUID() }],
      ['no version', { type: 'webhook.test', accountId: randomUUID() }],
      ['an unknown type', { v: 1, type: 'webhook.ping', accountId: randomUUID() }],
      ['no account', { v: 1, type: 'webhook.test', accountId: '' }],
      ['a redeliver without delivery id', { v: 1, type: 'webhook.redeliver', accountId: randomUUID() }],
    ])('answers validation_error for %s, without a request', async (_, command) => {
      const before = receiver.requests.length;
      const reply = await handler.handle(command);
      expect(errorOf(reply)).toEqual({
        code: 'validation_error',
        message: expect.stringMatching(/^Malformed dispatch command: /),
      });
      expect(receiver.requests.length).toBe(before);
    });
  });
});
