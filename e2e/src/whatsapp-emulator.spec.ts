import { type ApiClient, RecordingReceiver } from '@jumbe/testing';
import type { ServiceProcess } from '@jumbe/testing';
import type { EmulatedConnection, EmulatedUser, LinkedDevice } from '@jumbe/whatsapp-emulator';
import { createAccount, type TestAccount } from './support/operator';
import { eventually } from './support/sandbox-helpers';
import { type EmulatedTopology, startWithEmulator } from './support/whatsapp-emulator-topology';

/**
 * Issue 11: the real driver end to end. Gateway → NATS → worker → unmodified Baileys → the
 * WhatsApp emulator (Noise, Signal, the linking protocol) → JetStream → dispatcher → webhook.
 */
describe('real Baileys against the WhatsApp emulator (JUMBE_NETWORK=whatsapp)', () => {
  let emulated: EmulatedTopology;
  let api: ApiClient;
  let receiver: RecordingReceiver;
  let account: TestAccount;
  let phone: EmulatedUser;
  let contact: EmulatedUser;
  /** The worker that linked `shop`, and the device the phone linked. */
  let owner: ServiceProcess;
  let device: LinkedDevice;
  /** The contact's message the first worker received. */
  let inboundId: string;

  beforeAll(async () => {
    emulated = await startWithEmulator();
    api = emulated.topology.gateways[0]!;
    receiver = await RecordingReceiver.start();
    account = await createAccount(api, emulated.topology.adminToken);
    phone = emulated.network.user('254700000100', 'Duka');
    contact = emulated.network.user('254722000100', 'Amina');
  });
  afterAll(async () => {
    await receiver?.close();
    await emulated?.stop();
  });

  const status = (sessionId: string) =>
    api.get(`/api/v1/session/status?sessionId=${sessionId}`, { key: account.key });

  it('a worker without the trust preload refuses the emulator: no QR is ever shown', async () => {
    const untrusted = await emulated.startWorker('worker-untrusted', { trusted: false });
    const connections: EmulatedConnection[] = [];
    emulated.emulator.on('connection', (connection: EmulatedConnection) => connections.push(connection));
    expect(
      (await api.post('/api/v1/session/start', { key: account.key, body: { sessionId: 'untrusted' } }))
        .status,
    ).toBe(200);
    await eventually(
      async () => connections.length,
      (count) => count >= 2,
      15_000,
    );
    const shown = await api.get('/api/v1/session/qr?sessionId=untrusted', { key: account.key });
    expect(shown.body.data.state).not.toBe('qr_ready');
    // It reached the emulator and retried, but never completed a handshake with it.
    expect(connections.length).toBeGreaterThanOrEqual(2);
    expect(connections.some((connection) => connection.noise.established)).toBe(false);
    expect(await untrusted.stop('SIGTERM')).toBe(0);
    await api.delete('/api/v1/session?sessionId=untrusted', { key: account.key });
  });

  it('links by QR through the HTTP API, sends a text the contact decrypts, and delivers an inbound text to the webhook', async () => {
    owner = await emulated.startWorker('worker-1');
    const saved = await api.patch('/api/v1/webhook', {
      key: account.key,
      body: { url: `${receiver.url}/inbound` },
    });
    expect(saved.status).toBe(200);

    expect(
      (await api.post('/api/v1/session/start', { key: account.key, body: { sessionId: 'shop' } })).status,
    ).toBe(200);
    const qr = await eventually(
      () => api.get('/api/v1/session/qr?sessionId=shop', { key: account.key }),
      (response) => response.body?.data?.state === 'qr_ready',
    );
    device = await emulated.network.scanQr(phone, qr.body.data.qr);
    const connected = await eventually(
      () => status('shop'),
      (response) => response.body?.data?.state === 'connected',
      30_000,
    );
    expect(connected.body.data).toMatchObject({
      state: 'connected',
      connected: true,
      phoneNumber: '254700000100',
    });

    const sent = await api.post('/api/v1/messages/text', {
      key: account.key,
      body: { sessionId: 'shop', to: contact.phoneNumber, text: 'Karibu! Your order is ready.' },
    });
    expect(sent.status).toBe(200);
    const received = await eventually(
      async () => emulated.network.receivedBy(contact),
      (messages) => messages.length > 0,
    );
    expect(received[0]!.message.conversation ?? received[0]!.message.extendedTextMessage?.text).toBe(
      'Karibu! Your order is ready.',
    );

    inboundId = await emulated.network.sendMessage(contact, phone, { conversation: 'Asante, nakuja' });
    const [delivery] = await receiver.waitFor('/inbound', 1, 30_000);
    expect(delivery?.json).toMatchObject({
      event: 'message.received',
      sessionId: 'shop',
      message: {
        id: inboundId,
        from: '254722000100@s.whatsapp.net',
        phoneNumber: '254722000100',
        pushName: 'Amina',
        type: 'conversation',
        text: 'Asante, nakuja',
        fromMe: false,
      },
    });
  });

  it('SIGKILL of the owning worker: another worker connects the session without a new scan, and the message sent meanwhile reaches the webhook', async () => {
    const before = receiver.at('/inbound').length;
    const lost = emulated.network.connectionOf(device);
    await owner.stop('SIGKILL');
    await eventually(
      async () => emulated.network.connectionOf(device),
      (connection) => connection === undefined,
    );
    const sentMeanwhile = await emulated.network.sendMessage(contact, phone, {
      conversation: 'Are you open today?',
    });

    await emulated.startWorker('worker-2');
    const resumed = await eventually(
      async () => emulated.network.connectionOf(device),
      (connection) => connection !== undefined && connection !== lost,
      40_000,
    );
    expect(resumed).toBeDefined();
    const deliveries = await receiver.waitFor('/inbound', before + 1, 40_000);
    expect(deliveries.map((delivery) => delivery.json.message.id)).toContain(sentMeanwhile);
    expect((await status('shop')).body.data).toMatchObject({
      state: 'connected',
      phoneNumber: '254700000100',
    });
    // Resumed from the stored credentials: the phone still has exactly the one linked device.
    expect(emulated.network.linkedDevices(phone)).toEqual([device]);

    // A reply from the new worker quotes what the killed one received: kept, sealed, in PostgreSQL.
    const reply = await api.post('/api/v1/messages/text', {
      key: account.key,
      body: { sessionId: 'shop', to: contact.phoneNumber, text: 'Ndiyo, karibu', quotedMessageId: inboundId },
    });
    expect(reply.status).toBe(200);
    const quoting = await eventually(
      async () =>
        emulated.network.receivedBy(contact).find((message) => message.id === reply.body.data.key.id),
      (message) => message !== undefined,
    );
    expect(quoting!.message.extendedTextMessage?.contextInfo).toMatchObject({
      stanzaId: inboundId,
      participant: expect.stringMatching(/^254722000100@|@lid$/),
      quotedMessage: { conversation: 'Asante, nakuja' },
    });
  });

  it('the phone unlinks the device: the session ends logged_out and a new start shows a QR', async () => {
    emulated.network.unlink(device);
    const ended = await eventually(
      () => status('shop'),
      (response) => response.body?.data?.state === 'disconnected',
    );
    expect(ended.body.data).toMatchObject({ state: 'disconnected', connected: false, reason: 'logged_out' });

    // The credentials are gone: starting again registers a new device instead of logging in.
    expect(
      (await api.post('/api/v1/session/start', { key: account.key, body: { sessionId: 'shop' } })).status,
    ).toBe(200);
    const qr = await eventually(
      () => api.get('/api/v1/session/qr?sessionId=shop', { key: account.key }),
      (response) => response.body?.data?.state === 'qr_ready',
    );
    expect(qr.body.data.qr).toMatch(/^https:\/\/wa\.me\/settings\/linked_devices#/);
    expect(emulated.network.linkedDevices(phone)).toEqual([]);
  });
});
