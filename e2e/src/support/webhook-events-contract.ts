import { deliveredEventSchema, type WebhookEventName } from '@jumbe/contracts';
import { type ApiClient, failsThenSucceeds, type ReceivedRequest, RecordingReceiver } from '@jumbe/testing';
import { expectError } from './expect-error';
import { createAccount, type TestAccount } from './operator';
import { eventually, linkSession } from './sandbox-helpers';
import type { Topology } from './topology';

/**
 * The opt-in webhook events end to end (issue 12): subscriptions, `session.status`, opt-in
 * retries, and that one account never receives another's. The topology must allow private
 * networks (the receiver listens on 127.0.0.1) and shorten the retry backoff
 * (`JUMBE_WEBHOOK_RETRY_BASE_MS`, see RETRY_BASE_MS).
 */
/** The first retry's wait in these topologies (JUMBE_WEBHOOK_RETRY_BASE_MS): 300 ms, then 900 ms. */
export const RETRY_BASE_MS = 300;

export function describeWebhookEventsContract(start: () => Promise<Topology>): void {
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

  /** Saves the account's webhook at `path`, subscribed to `events` (the default when absent). */
  async function webhookAt(a: TestAccount, path: string, events?: string[]): Promise<void> {
    const body = { url: `${receiver.url}${path}`, ...(events ? { events } : {}) };
    const saved = await api.patch('/api/v1/webhook', { key: a.key, body });
    expect(saved.status).toBe(200);
  }

  /** Every body received at `path` is a valid event of its type (the published schemas). */
  function validated(requests: ReceivedRequest[]): ReceivedRequest[] {
    for (const request of requests) {
      const name = request.json.event as WebhookEventName;
      expect(deliveredEventSchema(name).safeParse(request.json).error).toBeUndefined();
      expect(request.headers['x-service-event']).toBe(name);
    }
    return requests;
  }

  const sandboxInbound = (a: TestAccount, text: string) =>
    api.post('/api/v1/sandbox/inbound', { key: a.key, body: { from: '254722000042', text } });

  it('lists the subscription in GET /webhook and refuses unknown event names with the known ones', async () => {
    const a = await account();
    await webhookAt(a, '/subscription');
    expect((await api.get('/api/v1/webhook', { key: a.key })).body.data.events).toEqual(['message.received']);
    const refused = await api.patch('/api/v1/webhook', { key: a.key, body: { events: ['message.sent'] } });
    expectError(refused, 400, 'validation_error');
    expect(refused.body.error.details).toEqual([
      { path: '/events/0', problem: expect.stringContaining('known events: message.received, ') },
    ]);
    for (const name of ['message.status', 'session.status', 'webhook.test'])
      expect(refused.body.error.details[0].problem).toContain(name);
    const chosen = await api.patch('/api/v1/webhook', { key: a.key, body: { events: ['session.status'] } });
    expect(chosen.body.data.events).toEqual(['session.status']);
    expect((await api.get('/api/v1/webhook', { key: a.key })).body.data.events).toEqual(['session.status']);
    // webhook.test goes whatever the subscription.
    expect((await api.post('/api/v1/webhook/test', { key: a.key })).body.data.delivery.status).toBe(
      'success',
    );
  });

  it('delivers by default exactly what the spec defines: message.received, no session.status', async () => {
    const a = await account();
    await webhookAt(a, '/default');
    await linkSession(api, a.key);
    const sent = await sandboxInbound(a, 'only this');
    const [request] = await receiver.waitFor('/default', 1);
    expect(request!.json).toMatchObject({ event: 'message.received', message: { id: sent.body.data.id } });
    await api.post('/api/v1/sandbox/disconnect', { key: a.key, body: { reason: 'logged_out' } });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.at('/default').map((r) => r.json.event)).toEqual(['message.received']);
    // Nothing was skipped silently: the one delivery is all GET /webhook lists.
    const deliveries = (await api.get('/api/v1/webhook', { key: a.key })).body.data.deliveries;
    expect(deliveries.map((d: { event: string }) => d.event)).toEqual(['message.received']);
  });

  it("retries a failed event once opted in: same delivery id, every attempt listed, the session's next message behind it", async () => {
    const a = await account();
    receiver.on('/retry', failsThenSucceeds(2));
    await webhookAt(a, '/retry');
    const opted = await api.patch('/api/v1/webhook', { key: a.key, body: { retry: { attempts: 3 } } });
    expect(opted.body.data.retry).toEqual({ attempts: 3 });
    expect((await api.get('/api/v1/webhook', { key: a.key })).body.data.retry).toEqual({ attempts: 3 });
    expectError(
      await api.patch('/api/v1/webhook', { key: a.key, body: { retry: { attempts: 11 } } }),
      400,
      'validation_error',
    );
    await linkSession(api, a.key);
    const first = (await sandboxInbound(a, 'first')).body.data.id;
    const second = (await sandboxInbound(a, 'second')).body.data.id;

    const requests = validated(await receiver.waitFor('/retry', 4, 15_000));
    expect(requests.map((request) => request.json.message.id)).toEqual([first, first, first, second]);
    const firstDelivery = requests[0]!.headers['x-service-delivery'];
    expect(requests.slice(0, 3).map((request) => request.json.deliveryId)).toEqual([
      firstDelivery,
      firstDelivery,
      firstDelivery,
    ]);
    const listed = await eventually(
      async () => (await api.get('/api/v1/webhook', { key: a.key })).body.data.deliveries,
      (deliveries: { id: string; attempt: number; status: string }[]) => deliveries.length === 4,
    );
    expect(listed.map((d) => [d.id, d.attempt, d.status])).toEqual([
      [requests[3]!.headers['x-service-delivery'], 1, 'success'],
      [firstDelivery, 3, 'success'],
      [firstDelivery, 2, 'failed'],
      [firstDelivery, 1, 'failed'],
    ]);

    // A redelivery by hand is still a new delivery, whatever the attempts behind it.
    const redelivered = await api.post(`/api/v1/webhook/deliveries/${firstDelivery}/redeliver`, {
      key: a.key,
    });
    expect(redelivered.status).toBe(200);
    expect(redelivered.body.data.delivery).toMatchObject({ status: 'success', attempt: 1 });
    expect(redelivered.body.data.delivery.id).not.toBe(firstDelivery);

    const off = await api.patch('/api/v1/webhook', { key: a.key, body: { retry: null } });
    expect(off.body.data.retry).toBeNull();
  });

  it('delivers session.status for every state change, in order with the messages, never a QR; other accounts see none of it', async () => {
    const a = await account();
    const b = await account();
    await webhookAt(a, '/status-a', ['session.status', 'message.received']);
    await webhookAt(b, '/status-b', ['session.status', 'message.received']);
    const phone = await linkSession(api, a.key);
    const qr = await api.get('/api/v1/session/qr', { key: b.key }); // b has no session: no QR to leak
    expect(qr.body.data.qr).toBe('');
    const inbound = await sandboxInbound(a, 'between the changes');
    await receiver.waitFor('/status-a', 3);
    await api.post('/api/v1/sandbox/disconnect', { key: a.key, body: { reason: 'network' } });
    await eventually(
      () => api.get('/api/v1/session/status', { key: a.key }),
      (response) => response.body.data?.state === 'connected',
    );
    await receiver.waitFor('/status-a', 5);
    await api.post('/api/v1/sandbox/disconnect', { key: a.key, body: { reason: 'logged_out' } });
    const requests = validated(await receiver.waitFor('/status-a', 6));

    expect(requests.map((r) => [r.json.event, r.json.session?.state ?? r.json.message?.id])).toEqual([
      ['session.status', 'qr_ready'],
      ['session.status', 'connected'],
      ['message.received', inbound.body.data.id],
      ['session.status', 'connecting'],
      ['session.status', 'connected'],
      ['session.status', 'disconnected'],
    ]);
    expect(requests[1]!.json.session).toEqual({ state: 'connected', phoneNumber: phone, reason: null });
    expect(requests[5]!.json.session).toEqual({
      state: 'disconnected',
      phoneNumber: null,
      reason: 'logged_out',
    });
    for (const request of requests) {
      expect(request.json).toMatchObject({ customerId: a.accountId, sessionId: 'default' });
      expect(request.raw.toString('utf8')).not.toContain('jumbe-sandbox://');
    }
    expect(receiver.at('/status-b')).toEqual([]);
  });

  it('delivers message.status for an API send: server_ack, then each step the phone marks, once; other accounts cannot mark it', async () => {
    const a = await account();
    const b = await account();
    await webhookAt(a, '/sent-a', ['message.status']);
    await webhookAt(b, '/sent-b', ['message.status', 'session.status']);
    await linkSession(api, a.key);
    await linkSession(api, b.key);
    const sent = await api.post('/api/v1/messages/text', {
      key: a.key,
      body: { to: '254733000001', text: 'Habari' },
    });
    expect(sent.status).toBe(200);
    const { id, remoteJid } = sent.body.data.key;
    await receiver.waitFor('/sent-a', 1);
    const mark = (who: TestAccount, status: string) =>
      api.post('/api/v1/sandbox/status', { key: who.key, body: { messageId: id, status } });
    const delivered = await mark(a, 'delivered');
    expect(delivered.status).toBe(200);
    expect(delivered.body.data).toEqual({ messageId: id, to: remoteJid, status: 'delivered' });
    await receiver.waitFor('/sent-a', 2);
    // A second device's receipt for a step already reported, and a late delivery, add nothing.
    await mark(a, 'read');
    await receiver.waitFor('/sent-a', 3);
    await mark(a, 'read');
    await mark(a, 'delivered');
    expectError(await mark(b, 'read'), 404, 'not_found');
    expectError(
      await api.post('/api/v1/sandbox/status', { key: a.key, body: { messageId: id, status: 'seen' } }),
      400,
      'validation_error',
    );
    await mark(a, 'played');
    const requests = validated(await receiver.waitFor('/sent-a', 4));
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    expect(receiver.at('/sent-a').map((r) => r.json.message.status)).toEqual([
      'server_ack',
      'delivered',
      'read',
      'played',
    ]);
    for (const request of requests) {
      expect(request.json).toMatchObject({
        event: 'message.status',
        customerId: a.accountId,
        sessionId: 'default',
        message: { id, to: remoteJid, at: expect.stringMatching(/Z$/) },
      });
    }
    expect(receiver.at('/sent-b').map((r) => r.json.event)).toEqual(['session.status', 'session.status']);
  });

  it('delivers reactions, deletions and edits of inbound messages as their own events, never as message.received', async () => {
    const a = await account();
    const b = await account();
    await webhookAt(a, '/changes-a', [
      'message.received',
      'message.reaction',
      'message.revoked',
      'message.edited',
    ]);
    await webhookAt(b, '/changes-b'); // the default: message.received only
    await linkSession(api, a.key);
    await linkSession(api, b.key);
    const from = '254722000077';
    const inbound = (who: TestAccount, body: object) =>
      api.post('/api/v1/sandbox/inbound', { key: who.key, body: { from, pushName: 'Amina', ...body } });
    const original = (await inbound(a, { text: 'Habari' })).body.data.id;
    const reacted = await inbound(a, { reaction: { messageId: original, emoji: '👍' } });
    expect(reacted.status).toBe(200);
    await inbound(a, { reaction: { messageId: original, emoji: '' } });
    await inbound(a, { edit: { messageId: original, text: 'Habari yako' } });
    await inbound(a, { revoke: { messageId: original } });
    await inbound(b, { reaction: { messageId: 'ANY', emoji: '👍' } });
    const requests = validated(await receiver.waitFor('/changes-a', 5));

    expect(requests.map((r) => r.json.event)).toEqual([
      'message.received',
      'message.reaction',
      'message.reaction',
      'message.edited',
      'message.revoked',
    ]);
    const sender = {
      from: `${from}@s.whatsapp.net`,
      replyTo: `${from}@s.whatsapp.net`,
      phoneNumber: from,
      pushName: 'Amina',
    };
    expect(requests[1]!.json.reaction).toMatchObject({
      id: reacted.body.data.id,
      messageId: original,
      emoji: '👍',
      ...sender,
    });
    expect(requests[2]!.json.reaction).toMatchObject({ messageId: original, emoji: '' });
    expect(requests[3]!.json.edited).toMatchObject({ messageId: original, text: 'Habari yako', ...sender });
    expect(requests[4]!.json.revoked).toMatchObject({ messageId: original, ...sender });
    for (const request of requests) expect(request.json.customerId).toBe(a.accountId);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.at('/changes-b')).toEqual([]);
  });
}
