import { type ApiClient, RecordingReceiver } from '@jumbe/testing';
import { verifyDelivery } from '@jumbe/webhook-receiver';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createAccount, type TestAccount } from './operator';
import { eventually, linkSession } from './sandbox-helpers';
import type { Topology } from './topology';
import { expectError } from './expect-error';

/**
 * Webhooks end to end (CONTRACT §6, spec "Events"): configuration, signed deliveries a receiver
 * can verify, every inbound kind, ordering, failures, redelivery. The topology must allow
 * private networks (the receiver listens on 127.0.0.1).
 */
export function describeWebhookContract(start: () => Promise<Topology>): void {
  let topology: Topology;
  let api: ApiClient;
  let receiver: RecordingReceiver;
  const account = () => createAccount(api, topology.adminToken, { maxSessions: 10 });

  beforeAll(async () => {
    topology = await start();
    api = topology.gateways[0]!;
    receiver = await RecordingReceiver.start();
  });
  afterAll(async () => {
    await receiver?.close();
    await topology?.stop();
  });

  /** An account with a linked session and a webhook at `path`; returns the secret. */
  async function subscribed(path: string, a?: TestAccount): Promise<{ a: TestAccount; secret: string }> {
    a ??= await account();
    await linkSession(api, a.key);
    const saved = await api.patch('/api/v1/webhook', { key: a.key, body: { url: `${receiver.url}${path}` } });
    expect(saved.status).toBe(200);
    return { a, secret: saved.body.secret };
  }

  it('reads an unconfigured webhook, and needs a url on the first save', async () => {
    const a = await account();
    const read = await api.get('/api/v1/webhook', { key: a.key });
    expect(read.body.data).toEqual({
      url: null,
      enabled: false,
      hasSecret: false,
      events: ['message.received'],
      retry: null,
      deliveries: [],
    });
    const noUrl = await api.patch('/api/v1/webhook', { key: a.key, body: { enabled: true } });
    expectError(noUrl, 400, 'validation_error');
    expect(noUrl.body.error.details[0].path).toBe('/url');
    expectError(
      await api.patch('/api/v1/webhook', { key: a.key, body: { url: 'ftp://example.com/x' } }),
      400,
      'invalid_webhook_url',
    );
    expectError(
      await api.patch('/api/v1/webhook', { key: a.key, body: { url: `${receiver.url}/x`, enabled: 'yes' } }),
      400,
      'validation_error',
    );
    expectError(await api.post('/api/v1/webhook/test', { key: a.key }), 409, 'webhook_not_enabled');
  });

  it('shows the secret on the first save and on rotation only', async () => {
    const a = await account();
    const first = await api.patch('/api/v1/webhook', {
      key: a.key,
      body: { url: `${receiver.url}/secrets` },
    });
    expect(first.body).toEqual({
      message: expect.any(String),
      data: {
        url: `${receiver.url}/secrets`,
        enabled: true,
        hasSecret: true,
        events: ['message.received'],
        retry: null,
      },
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const toggled = await api.patch('/api/v1/webhook', { key: a.key, body: { enabled: false } });
    expect(toggled.body.secret).toBeUndefined();
    expect(toggled.body.data).toEqual({
      url: `${receiver.url}/secrets`,
      enabled: false,
      hasSecret: true,
      events: ['message.received'],
      retry: null,
    });
    expectError(await api.post('/api/v1/webhook/test', { key: a.key }), 409, 'webhook_not_enabled');
    const rotated = await api.patch('/api/v1/webhook', {
      key: a.key,
      body: { enabled: true, rotateSecret: true },
    });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(first.body.secret);
    const read = await api.get('/api/v1/webhook', { key: a.key });
    expect(read.text).not.toContain('whsec_');
    const removed = await api.delete('/api/v1/webhook', { key: a.key });
    expect(removed.body.data).toEqual({
      url: null,
      enabled: false,
      hasSecret: false,
      events: ['message.received'],
      retry: null,
    });
    expect((await api.get('/api/v1/webhook', { key: a.key })).body.data.url).toBeNull();
    const again = await api.patch('/api/v1/webhook', {
      key: a.key,
      body: { url: `${receiver.url}/secrets` },
    });
    expect(again.body.secret).toMatch(/^whsec_/);
  });

  it('keeps a token in the webhook URL secret: shown masked everywhere, posted to in full', async () => {
    const token = `tok_${randomBytes(12).toString('hex')}`;
    const { a, secret } = await subscribed(`/tokened?token=${token}&v=2`);
    const masked = `${receiver.url}/tokened?token=****&v=****`;
    expect((await api.get('/api/v1/webhook', { key: a.key })).body.data.url).toBe(masked);
    // A form filled from GET /webhook sends the masked URL back: the full one is kept.
    const toggled = await api.patch('/api/v1/webhook', { key: a.key, body: { url: masked, enabled: true } });
    expect(toggled.body.data.url).toBe(masked);

    await api.post('/api/v1/sandbox/inbound', {
      key: a.key,
      body: { from: '254722000050', text: 'tokened' },
    });
    const [request] = await receiver.waitFor(`/tokened?token=${token}&v=2`, 1);
    verifyDelivery({ body: request!.raw, headers: request!.headers as Record<string, string>, secret });
    const tested = await api.post('/api/v1/webhook/test', { key: a.key });
    expect(tested.body.data.delivery).toMatchObject({ status: 'success', url: masked });
    expect(receiver.at(`/tokened?token=${token}&v=2`)).toHaveLength(2);

    const listed = await eventually(
      () => api.get('/api/v1/webhook', { key: a.key }),
      (response) => response.body.data.deliveries.length === 2,
    );
    expect(listed.body.data.deliveries.map((delivery: { url: string }) => delivery.url)).toEqual([
      masked,
      masked,
    ]);
    expect(listed.text).not.toContain(token);
    for (const process of topology.processes) expect(process.logs()).not.toContain(token);
  });

  it('sends a signed webhook.test that the receiver helper and Standard Webhooks verify', async () => {
    const a = await account();
    const { body } = await api.patch('/api/v1/webhook', {
      key: a.key,
      body: { url: `${receiver.url}/test-event` },
    });
    const tested = await topology.gateways[topology.gateways.length - 1]!.post('/api/v1/webhook/test', {
      key: a.key,
    });
    expect(tested.status).toBe(200);
    const delivery = tested.body.data.delivery;
    expect(delivery).toEqual({
      id: expect.any(String),
      event: 'webhook.test',
      sessionId: 'default',
      url: `${receiver.url}/test-event`,
      status: 'success',
      statusCode: 200,
      error: null,
      response: 'ok',
      durationMs: expect.any(Number),
      createdAt: expect.any(String),
      attemptedAt: expect.any(String),
      attempt: 1,
    });
    const [request] = receiver.at('/test-event');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['x-service-event']).toBe('webhook.test');
    expect(request!.headers['x-service-delivery']).toBe(delivery.id);
    expect(request!.headers['webhook-id']).toBe(delivery.id);
    const verified = verifyDelivery({
      body: request!.raw,
      headers: request!.headers as Record<string, string>,
      secret: body.secret,
    });
    expect(verified.deliveryId).toBe(delivery.id);
    expect(request!.json).toEqual({
      event: 'webhook.test',
      deliveryId: delivery.id,
      timestamp: expect.any(String),
      customerId: a.accountId,
      sessionId: 'default',
      data: { message: expect.stringMatching(/test/i) },
    });
    expect(() =>
      new Webhook(body.secret).verify(
        request!.raw.toString('utf8'),
        request!.headers as Record<string, string>,
      ),
    ).not.toThrow();
    // A different secret, or a re-serialised body, does not verify.
    expect(() =>
      verifyDelivery({
        body: request!.raw,
        headers: request!.headers as Record<string, string>,
        secret: 'whsec_' + Buffer.alloc(32).toString('base64'),
      }),
    ).toThrow();
    expect(() =>
      verifyDelivery({
        body: JSON.stringify(request!.json, null, 2),
        headers: request!.headers as Record<string, string>,
        secret: body.secret,
      }),
    ).toThrow();
  });

  it('delivers message.received for every inbound kind, with the reply routing fields right', async () => {
    const { a, secret } = await subscribed('/inbound');
    const send = (message: object) => api.post('/api/v1/sandbox/inbound', { key: a.key, body: message });
    const direct = (await send({ from: '254722000001', pushName: 'Amina', text: 'Habari' })).body.data.id;
    const lid = (await send({ from: '254722000002', lid: true, text: 'via lid' })).body.data.id;
    const group = (
      await send({ from: '254722000003', group: { id: '120363040000000000@g.us' }, text: 'group hi' })
    ).body.data.id;
    const media = (
      await send({
        from: '254722000004',
        media: { type: 'document', fileName: 'invoice.pdf', mimetype: 'application/pdf', caption: 'Invoice' },
      })
    ).body.data.id;
    const voice = (await send({ from: '254722000005', media: { type: 'audio', seconds: 7 } })).body.data.id;
    const button = (
      await send({ from: '254722000006', interaction: { type: 'quick_reply', id: 'yes', label: 'Yes' } })
    ).body.data.id;
    const requests = await receiver.waitFor('/inbound', 6);
    expect(requests).toHaveLength(6);
    const byId = new Map(requests.map((request) => [request.json.message.id, request]));
    for (const request of requests) {
      const verified = verifyDelivery({
        body: request.raw,
        headers: request.headers as Record<string, string>,
        secret,
      });
      expect(verified.event).toBe('message.received');
      expect(request.json).toMatchObject({
        event: 'message.received',
        customerId: a.accountId,
        sessionId: 'default',
        deliveryId: request.headers['x-service-delivery'],
      });
      expect(request.json.message.fromMe).toBe(false);
      expect(request.json.message.messageTimestamp).toMatch(/Z$/);
    }
    expect(byId.get(direct)!.json.message).toMatchObject({
      from: '254722000001@s.whatsapp.net',
      replyTo: '254722000001@s.whatsapp.net',
      phoneNumber: '254722000001',
      pushName: 'Amina',
      type: 'conversation',
      text: 'Habari',
      participant: null,
      interaction: null,
      media: null,
    });
    expect(byId.get(lid)!.json.message).toMatchObject({
      phoneNumber: '254722000002',
      chat: expect.stringMatching(/@lid$/),
      rawChat: expect.stringMatching(/@lid$/),
    });
    expect(byId.get(lid)!.json.message.replyTo).toBe('254722000002@s.whatsapp.net');
    expect(byId.get(group)!.json.message).toMatchObject({
      replyTo: '120363040000000000@g.us',
      chat: '120363040000000000@g.us',
      participant: '254722000003@s.whatsapp.net',
      phoneNumber: '254722000003',
    });
    expect(byId.get(media)!.json.message).toMatchObject({
      type: 'documentMessage',
      text: 'Invoice',
      media: {
        type: 'document',
        mimetype: 'application/pdf',
        fileName: 'invoice.pdf',
        caption: 'Invoice',
        seconds: null,
      },
    });
    expect(byId.get(voice)!.json.message.media).toMatchObject({ type: 'audio', seconds: 7 });
    expect(byId.get(button)!.json.message).toMatchObject({
      type: 'interactiveResponseMessage',
      text: 'yes',
      interaction: { type: 'quick_reply', id: 'yes', label: 'Yes' },
    });
    // A reply uses the event's sessionId and message.replyTo, and reaches the network.
    const reply = await api.post('/api/v1/messages/text', {
      key: a.key,
      body: {
        sessionId: byId.get(group)!.json.sessionId,
        to: byId.get(group)!.json.message.replyTo,
        text: 'Karibu',
      },
    });
    expect(reply.body.data.key.remoteJid).toBe('120363040000000000@g.us');
  });

  // Regression: PostgreSQL refuses U+0000 and lone surrogates; the event at the head of the queue
  // was retried forever and nothing after it was ever delivered.
  it('delivers a text with a NUL and a lone surrogate, and every message after it', async () => {
    const { a } = await subscribed('/poison');
    for (const text of ['nul\u0000here', 'lone \uD83D surrogate', 'after'])
      expect(
        (await api.post('/api/v1/sandbox/inbound', { key: a.key, body: { from: '254722222222', text } }))
          .status,
      ).toBe(200);
    const requests = await receiver.waitFor('/poison', 3);
    // Delivered as received where it never had to be stored, else with U+FFFD in its place.
    expect(requests.map((request) => request.json.message.text)).toEqual([
      // eslint-disable-next-line no-control-regex -- the NUL sent, or its replacement
      expect.stringMatching(/^nul[\u0000\uFFFD]here$/),
      expect.stringMatching(/^lone [\uD83D\uFFFD] surrogate$/),
      'after',
    ]);
  });

  // Regression: a NUL in the receiver's answer made the delivery record fail forever.
  it('records a receiver answer with a NUL byte and keeps delivering; the test event still works', async () => {
    const { a } = await subscribed('/nul-answer');
    receiver.on('/nul-answer', (_request, response) => response.end('ok\u0000then'));
    for (const text of ['one', 'two'])
      await api.post('/api/v1/sandbox/inbound', { key: a.key, body: { from: '254722222223', text } });
    await receiver.waitFor('/nul-answer', 2);
    const listed = await eventually(
      () => api.get('/api/v1/webhook', { key: a.key }),
      (response) => response.body.data.deliveries.length === 2,
    );
    // eslint-disable-next-line no-control-regex -- the NUL answered, or its replacement
    const storedAnswer = expect.stringMatching(/^ok[\u0000\uFFFD]then$/);
    expect(listed.body.data.deliveries[0]).toMatchObject({ status: 'success', response: storedAnswer });
    const tested = await api.post('/api/v1/webhook/test', { key: a.key });
    expect(tested.status).toBe(200);
    expect(tested.body.data.delivery).toMatchObject({ status: 'success', response: storedAnswer });
  });

  it("keeps one session's events in order", async () => {
    const { a } = await subscribed('/ordered');
    for (let i = 0; i < 15; i += 1)
      await api.post('/api/v1/sandbox/inbound', {
        key: a.key,
        body: { from: '254722000010', text: `n${i}` },
      });
    const requests = await receiver.waitFor('/ordered', 15);
    expect(requests.map((request) => request.json.message.text)).toEqual(
      Array.from({ length: 15 }, (_, i) => `n${i}`),
    );
  });

  it('records failed deliveries, lists the newest 20, and redelivers by hand as a new delivery', async () => {
    const { a, secret } = await subscribed('/flaky');
    receiver.on('/flaky', (_request, response) => {
      response.statusCode = 500;
      response.end('boom');
    });
    for (let i = 0; i < 22; i += 1)
      await api.post('/api/v1/sandbox/inbound', {
        key: a.key,
        body: { from: '254722000020', text: `f${i}` },
      });
    await receiver.waitFor('/flaky', 22);
    const listed = await eventually(
      () => api.get('/api/v1/webhook', { key: a.key }),
      (response) => response.body.data.deliveries.length === 20,
    );
    const deliveries = listed.body.data.deliveries;
    expect(deliveries).toHaveLength(20);
    expect(deliveries[0]).toMatchObject({
      event: 'message.received',
      status: 'failed',
      statusCode: 500,
      response: 'boom',
      error: expect.stringContaining('500'),
    });
    const times = deliveries.map((delivery: { attemptedAt: string }) => delivery.attemptedAt);
    expect([...times].sort().reverse()).toEqual(times);
    // Nothing is retried automatically.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.at('/flaky')).toHaveLength(22);

    receiver.on('/flaky', (_request, response) => response.end('fixed'));
    const failed = deliveries[0];
    const redelivered = await api.post(`/api/v1/webhook/deliveries/${failed.id}/redeliver`, { key: a.key });
    expect(redelivered.status).toBe(200);
    expect(redelivered.body.data.delivery).toMatchObject({
      status: 'success',
      statusCode: 200,
      response: 'fixed',
      event: 'message.received',
    });
    expect(redelivered.body.data.delivery.id).not.toBe(failed.id);
    const last = receiver.at('/flaky').at(-1)!;
    expect(last.json.deliveryId).toBe(redelivered.body.data.delivery.id);
    expect(last.json.message.text).toBe(
      receiver.at('/flaky').find((r) => r.json.deliveryId === failed.id)!.json.message.text,
    );
    verifyDelivery({ body: last.raw, headers: last.headers as Record<string, string>, secret });

    const other = await account();
    expectError(
      await api.post(`/api/v1/webhook/deliveries/${failed.id}/redeliver`, { key: other.key }),
      404,
      'not_found',
    );
    expectError(
      await api.post('/api/v1/webhook/deliveries/not-a-uuid/redeliver', { key: a.key }),
      404,
      'not_found',
    );
    expect((await api.get('/api/v1/webhook', { key: other.key })).body.data.deliveries).toEqual([]);
  });

  it('treats a redirect as a failure and does not follow it', async () => {
    const { a } = await subscribed('/moved');
    receiver.on('/moved', (_request, response) => {
      response.writeHead(301, { location: `${receiver.url}/elsewhere` });
      response.end();
    });
    const tested = await api.post('/api/v1/webhook/test', { key: a.key });
    expect(tested.body.data.delivery).toMatchObject({
      status: 'failed',
      statusCode: 301,
      error: expect.stringMatching(/redirect/i),
    });
    expect(receiver.at('/elsewhere')).toHaveLength(0);
  });

  it('sends nothing and records nothing while the webhook is disabled', async () => {
    const { a } = await subscribed('/disabled');
    await api.patch('/api/v1/webhook', { key: a.key, body: { enabled: false } });
    await api.post('/api/v1/sandbox/inbound', {
      key: a.key,
      body: { from: '254722000030', text: 'unheard' },
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.at('/disabled')).toHaveLength(0);
    expect((await api.get('/api/v1/webhook', { key: a.key })).body.data.deliveries).toEqual([]);
  });

  it('signs the very next delivery with a rotated secret', async () => {
    const { a, secret } = await subscribed('/rotate');
    const rotated = (await api.patch('/api/v1/webhook', { key: a.key, body: { rotateSecret: true } })).body
      .secret;
    await api.post('/api/v1/sandbox/inbound', {
      key: a.key,
      body: { from: '254722000040', text: 'after rotation' },
    });
    const [request] = await receiver.waitFor('/rotate', 1);
    verifyDelivery({
      body: request!.raw,
      headers: request!.headers as Record<string, string>,
      secret: rotated,
    });
    expect(() =>
      verifyDelivery({ body: request!.raw, headers: request!.headers as Record<string, string>, secret }),
    ).toThrow();
  });
}
