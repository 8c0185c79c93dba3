import '@jumbe/whatsapp-emulator/trust-preload';
import { type CallReceivedEventV1, type SessionCommand } from '@jumbe/contracts';
import { WhatsAppNetworkDriver } from '@jumbe/network';
import {
  AccountRepository,
  CallSettingsRepository,
  InboundOutboxRepository,
  NetworkCredentialStore,
  openMigratedTestDatabase,
  PlanRepository,
  SentMessageRepository,
  SessionRepository,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import { EmulatedNetwork, type EmulatedUser, WhatsAppEmulator } from '@jumbe/whatsapp-emulator';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { InboundRelay } from './inbound-relay';
import { SessionHost } from './session-host';
import { StatusRelay } from './status-relay';
import { sessionInUnusedShard } from './test-support/host-harness';
import { eventually } from './test-support/emulator-wait';
import { RecordingPublisher } from './test-support/recording-publisher';

/** The smallest PNG there is (1×1). */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * Issue 30 items 5 and 6 on the real path: the worker's commands and call handling with the real
 * WhatsApp driver, unmodified Baileys over the emulator, and PostgreSQL (the calls setting). What
 * the emulator's server records is what WhatsApp would have received.
 */
describe('profiles and calls through real Baileys against the WhatsApp emulator', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let db: MigratedTestDatabase;
  let host: SessionHost;
  const announced = new RecordingPublisher();
  let ref: { accountId: string; sessionId: string };
  let phone: EmulatedUser;
  let contact: EmulatedUser;
  /** Serves /picture.png (a PNG) and /page.html (no picture). */
  let files: Server | undefined;
  let filesUrl = '';

  const run = (command: Record<string, unknown>) =>
    host.execute({ v: 1, ...ref, ...command } as SessionCommand) as Promise<Record<string, unknown>>;

  beforeAll(async () => {
    await emulator.start();
    files = createServer((request, response) => {
      if (request.url === '/picture.png') response.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else response.writeHead(200, { 'content-type': 'text/html' }).end('<html>not a picture</html>');
    });
    await new Promise<void>((resolve) => files?.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    db = await openMigratedTestDatabase();
    const sessions = new SessionRepository(db.dataSource);
    const credentials = new NetworkCredentialStore(db.dataSource);
    const planId = (
      await new PlanRepository(db.dataSource).create({ name: 'basic', monthlyApiHits: 1_000, maxSessions: 3 })
    ).id;
    const accountId = (await new AccountRepository(db.dataSource).create({ name: 'Duka', planId })).id;
    const placed = sessionInUnusedShard(accountId, new Set());
    ref = { accountId, sessionId: placed.sessionId };
    const driver = new WhatsAppNetworkDriver({
      credentials,
      inboundOutbox: new InboundOutboxRepository(db.dataSource),
      sentMessages: new SentMessageRepository(db.dataSource),
      secretKey: 'test-secret-key-with-enough-characters',
      logger: pino({ level: 'silent' }),
      baileysLogLevel: process.env['EMULATOR_LOG'] ?? 'silent',
      fetchVersion: async () => null,
      webSocketUrl: emulator.url,
      reconnectBaseMs: 50,
      reconnectMaxMs: 200,
      connectSpacingMs: 0,
      redeliveryIntervalMs: 50,
      // The pictures below are served from 127.0.0.1.
      allowPrivateNetworks: true,
    });
    host = new SessionHost(driver, {
      sessions,
      credentials,
      inbound: new InboundRelay(new RecordingPublisher()),
      statuses: new StatusRelay(announced),
      logger: pino({ level: 'silent' }),
      callSettings: new CallSettingsRepository(db.dataSource),
    });
    await host.adoptShard(placed.shard, 1);
    await run({ type: 'session.start', maxSessions: 3 });
    const qr = await eventually('a QR', async () => {
      const shown = await run({ type: 'session.qr' });
      return shown['state'] === 'qr_ready' && (shown['qr'] as string);
    });
    phone = network.user('254720000901', 'Duka');
    contact = network.user('254711000901', 'Amina');
    await network.scanQr(phone, qr);
    await eventually(
      'connected',
      async () => (await run({ type: 'session.status' }))['state'] === 'connected',
    );
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => files?.close(resolve));
    await host?.dropShard(sessionInUnusedShard(ref.accountId, new Set()).shard);
    await emulator.stop();
    await db?.close();
  });

  it("sets the number's name, about and picture as WhatsApp's server receives them, and reads them back", async () => {
    const updated = await run({
      type: 'profile.update',
      change: { name: 'Duka la Mama', about: 'Open 8 to 6', pictureData: PNG.toString('base64') },
    });
    expect(updated).toEqual({ updated: ['name', 'about', 'picture'] });

    const seen = network.profiles.of(phone);
    expect(seen.about).toBe('Open 8 to 6');
    // The presence that announces it is a frame with no answer: the server may read it a moment later.
    await eventually('the name', () => seen.name === 'Duka la Mama');
    // Baileys made the uploaded picture a 640×640 JPEG, as WhatsApp takes it.
    expect(seen.picture?.bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));

    const read = await run({ type: 'profile.read' });
    expect(read).toEqual({
      name: 'Duka la Mama',
      about: 'Open 8 to 6',
      pictureUrl: network.profiles.pictureUrl(phone),
    });
  }, 30_000);

  it('takes the picture from a URL, fetched like media, and refuses a page that is no picture', async () => {
    const before = network.profiles.of(phone).picture?.id ?? 0;
    await run({ type: 'profile.update', change: { pictureUrl: `${filesUrl}/picture.png` } });
    expect(network.profiles.of(phone).picture?.id).toBeGreaterThan(before);
    const after = network.profiles.of(phone).picture?.id;
    await expect(
      run({ type: 'profile.update', change: { pictureUrl: `${filesUrl}/page.html` } }),
    ).rejects.toMatchObject({ code: 'media_fetch_failed' });
    expect(network.profiles.of(phone).picture?.id).toBe(after);
  }, 30_000);

  it('refuses a picture that is neither JPEG nor PNG, sending nothing', async () => {
    const before = network.profiles.of(phone).picture?.id;
    await expect(
      run({ type: 'profile.update', change: { pictureData: Buffer.from('GIF89a....').toString('base64') } }),
    ).rejects.toMatchObject({ code: 'media_fetch_failed' });
    expect(network.profiles.of(phone).picture?.id).toBe(before);
  }, 30_000);

  it("reads a contact's picture URL and about, and null for a contact who has none", async () => {
    network.profiles.setAbout(contact, 'Available', new Date('2026-01-02T03:04:05Z'));
    network.profiles.setPicture(contact, PNG);
    expect(await run({ type: 'contact.profile', contact: contact.phoneNumber })).toEqual({
      contact: contact.phoneNumber,
      pictureUrl: network.profiles.pictureUrl(contact),
      about: 'Available',
      aboutSetAt: '2026-01-02T03:04:05.000Z',
    });
    const stranger = network.user('254711000902', 'Juma');
    expect(await run({ type: 'contact.profile', contact: stranger.phoneNumber })).toEqual({
      contact: stranger.phoneNumber,
      pictureUrl: null,
      about: null,
      aboutSetAt: null,
    });
  }, 30_000);

  it('blocks and unblocks a contact on the server', async () => {
    await run({ type: 'contact.block', contact: contact.phoneNumber, blocked: true });
    expect([...network.profiles.of(phone).blocked]).toEqual([contact.lid]);
    await run({ type: 'contact.block', contact: contact.phoneNumber, blocked: false });
    expect([...network.profiles.of(phone).blocked]).toEqual([]);
  }, 30_000);

  it('reports a ringing call, and once the setting says so rejects it and texts the caller', async () => {
    const calls = () =>
      announced.events
        .map((event) => event.payload as CallReceivedEventV1)
        .filter((event) => event.event === 'call.received');

    const first = network.calls.ring(contact, phone);
    const ringing = await eventually('call.received', () => calls().find((event) => event.call.id === first));
    expect(ringing.call).toMatchObject({
      from: contact.phoneNumber,
      video: false,
      group: false,
      rejected: false,
    });
    expect(network.calls.rejected).toEqual([]);

    const reply = 'We do not take calls: please send a message.';
    await run({ type: 'calls.settings.update', rejectCalls: true, reply });
    expect(await run({ type: 'calls.settings.read' })).toEqual({
      sessionId: ref.sessionId,
      rejectCalls: true,
      reply,
    });

    const second = network.calls.ring(contact, phone, { video: true });
    const rejected = await eventually('call.received', () =>
      calls().find((event) => event.call.id === second),
    );
    expect(rejected.call).toMatchObject({ video: true, rejected: true });
    expect(network.calls.rejected).toEqual([
      expect.objectContaining({ callId: second, by: phone, callCreator: contact.jid }),
    ]);
    const text = await eventually('the reply', () =>
      network
        .receivedBy(contact)
        .find(
          (message) => (message.message.conversation ?? message.message.extendedTextMessage?.text) === reply,
        ),
    );
    expect(text.sender.startsWith(phone.phoneNumber)).toBe(true);
    expect(network.failures).toEqual([]);
  }, 30_000);
});
