import '@jumbe/whatsapp-emulator/trust-preload';
import type { EventPublisher, OutgoingEvent } from '@jumbe/messaging';
import { WhatsAppNetworkDriver } from '@jumbe/network';
import {
  InboundOutboxRepository,
  NetworkCredentialStore,
  openMigratedTestDatabase,
  SentMessageRepository,
  SessionRepository,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import { TcpProxy } from '@jumbe/testing';
import { EmulatedNetwork, WhatsAppEmulator } from '@jumbe/whatsapp-emulator';
import pino from 'pino';
import { InboundRelay } from './inbound-relay';
import { DEFAULT_SESSION_HOST_OPTIONS, SessionHost } from './session-host';
import { StatusRelay } from './status-relay';
import { linkOnHost, newTestSession } from './test-support/emulator-link';
import { eventually } from './test-support/emulator-wait';
import { RecordingPublisher } from './test-support/recording-publisher';

/**
 * Issue 28, chaos seed 5 (pattern B): a live message that arrived while its socket's offline backlog
 * was still coming in is held for that backlog; when the socket ends first, WhatsApp hands what it
 * still queued for the device to the next socket, and the message waits for that socket's backlog
 * instead of going out at once (before, it was handed on as its socket ended, and a backlog message
 * sent before it came on the next socket 70 s later). It goes among that backlog by the server's
 * time: before what the contact sent while the device was away again. Real Baileys against the
 * emulator, which withholds the end of the backlog (`<ib><offline>`) as long as the test says.
 */
describe('a live message held for a backlog its socket never completed', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let db: MigratedTestDatabase;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    await emulator.start();
    db = await openMigratedTestDatabase();
  }, 60_000);
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
    await emulator.stop();
    await db?.close();
  });

  /** One worker reaching the emulator at `url`. */
  function worker(url: string) {
    const events: OutgoingEvent[] = [];
    const publisher: EventPublisher = {
      publish: async (event) => {
        events.push(structuredClone(event));
      },
    };
    const driver = new WhatsAppNetworkDriver({
      credentials: new NetworkCredentialStore(db.dataSource),
      inboundOutbox: new InboundOutboxRepository(db.dataSource),
      sentMessages: new SentMessageRepository(db.dataSource),
      secretKey: 'test-secret-key-with-enough-characters',
      logger: pino({ level: process.env['SPEC_LOG'] ?? 'silent' }),
      baileysLogLevel: process.env['EMULATOR_LOG'] ?? 'silent',
      fetchVersion: async () => null,
      webSocketUrl: url,
      reconnectBaseMs: 50,
      reconnectMaxMs: 300,
      connectSpacingMs: 0,
      redeliveryIntervalMs: 50,
    });
    const host = new SessionHost(
      driver,
      {
        sessions: new SessionRepository(db.dataSource),
        credentials: new NetworkCredentialStore(db.dataSource),
        inbound: new InboundRelay(publisher),
        statuses: new StatusRelay(new RecordingPublisher()),
        logger: pino({ level: 'silent' }),
      },
      DEFAULT_SESSION_HOST_OPTIONS,
    );
    /** The texts of the messages this worker published, in order. */
    const texts = () =>
      events.map((event) => (event.payload as { message?: { text?: string } }).message?.text);
    return { host, texts };
  }

  /** A worker reaching the emulator through a TCP proxy the test cuts and restores. */
  async function proxiedWorker() {
    const target = new URL(emulator.url);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port) });
    cleanups.push(() => proxy.close());
    const url = new URL(emulator.url);
    url.port = String(proxy.port);
    return { proxy, first: worker(url.toString()) };
  }

  it("waits for the next socket's backlog, and goes before what was sent while the device was away again", async () => {
    const { proxy, first } = await proxiedWorker();
    const phone = network.user('254733700001', 'Duka');
    const contact = network.user('254733700002', 'Juma');
    const device = await linkOnHost(first.host, await newTestSession(db.dataSource, 'Acme'), network, phone);
    await network.sendMessage(contact, phone, { conversation: 'hello' });
    await eventually('the first delivered', () => first.texts().includes('hello'));

    // Away: what the contact sends now waits on the server, for the device's next login.
    await proxy.cut();
    await eventually('the device offline', () => network.connectionOf(device) === undefined);
    await network.sendMessage(contact, phone, { conversation: 'while you were away' });
    // Back, with the end of the backlog withheld: a live message now is held for it.
    const releaseBacklogEnd = network.holdOfflineCompletion();
    cleanups.push(async () => releaseBacklogEnd());
    await proxy.restore();
    await eventually('the backlog answered, its end withheld', () => network.offlineCompletionsHeld === 1);
    await eventually('the backlog message delivered', () => first.texts().includes('while you were away'));
    const liveId = await network.sendMessage(contact, phone, { conversation: 'are you there?' });
    await eventually('the live message receipted to WhatsApp', () => !device.unanswered.has(liveId));

    // The socket ends before its backlog completed (a version bump, a refusal): the live message
    // waits for the next socket's backlog, not handed on as its socket goes.
    await proxy.cut();
    await eventually('the device offline again', () => network.connectionOf(device) === undefined);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(first.texts()).not.toContain('are you there?');
    // A later second on the server: sent after the live one, queued for the next login.
    await network.sendMessage(contact, phone, { conversation: 'still there?' });
    releaseBacklogEnd();
    await proxy.restore();

    await eventually('both delivered after the next login', () => first.texts().includes('still there?'));
    expect(first.texts().filter((text) => text !== 'hello')).toEqual([
      'while you were away',
      'are you there?',
      'still there?',
    ]);
  }, 120_000);

  it("goes among the next socket's backlog by its server time when it comes there unmarked (chaos seed 57)", async () => {
    const { proxy, first } = await proxiedWorker();
    const phone = network.user('254733700011', 'Soko');
    const contact = network.user('254733700012', 'Amina');
    const device = await linkOnHost(first.host, await newTestSession(db.dataSource, 'Soko'), network, phone);

    // Away; a backlog of three waits for the next login.
    await proxy.cut();
    await eventually('the device offline', () => network.connectionOf(device) === undefined);
    const awayIds: string[] = [];
    for (const text of ['away 1', 'away 2', 'away 3'])
      awayIds.push(await network.sendMessage(contact, phone, { conversation: text }));
    // The path goes quiet right after the login: the device's request for its backlog is lost,
    // so the backlog stays unsent, and what the contact sends now queues behind it, unmarked
    // (the server took it while the device was online).
    const releaseLogin = network.holdLogins();
    cleanups.push(async () => releaseLogin());
    await proxy.restore();
    await eventually('the login held', () => network.loginsHeld === 1);
    releaseLogin();
    expect(network.silenceConnection(device)).toBe(true);
    const liveId = await network.sendMessage(contact, phone, { conversation: 'are you there?' });
    await proxy.cut();
    await eventually('the device offline again', () => network.connectionOf(device) === undefined);
    // The precondition: the live one waits for the next login behind the backlog, without the
    // offline marking (it comes there as a live stanza, before the backlog is complete).
    const queued = (id: string) => device.backlog.find((stanza) => stanza.attrs.id === id);
    expect(awayIds.map((id) => queued(id)?.attrs.offline)).toEqual(['1', '1', '1']);
    expect(queued(liveId)?.attrs.offline).toBeUndefined();
    expect(device.backlog.at(-1)?.attrs.id).toBe(liveId);
    // A later second on the server: sent after the live one, queued (marked) for the next login.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await network.sendMessage(contact, phone, { conversation: 'still there?' });
    await proxy.restore();

    await eventually(
      'all delivered after the next login',
      () => first.texts().includes('still there?'),
      60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(first.texts()).toEqual(['away 1', 'away 2', 'away 3', 'are you there?', 'still there?']);
  }, 120_000);
});
