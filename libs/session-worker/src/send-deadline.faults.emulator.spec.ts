import '@jumbe/whatsapp-emulator/trust-preload';
import { type CommandReply, MESSAGE_SEND_VERSION } from '@jumbe/contracts';
import { replyWithinHeaders } from '@jumbe/messaging';
import { WhatsAppNetworkDriver } from '@jumbe/network';
import {
  createDataSource,
  InboundOutboxRepository,
  NetworkCredentialStore,
  openMigratedTestDatabase,
  SentMessageRepository,
  SessionRepository,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import { TcpProxy } from '@jumbe/testing';
import { EmulatedNetwork, type ReceivedMessage, WhatsAppEmulator } from '@jumbe/whatsapp-emulator';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { InboundRelay } from './inbound-relay';
import { REPLY_MARGIN_MS, SessionCommandHandler } from './session-command-handler';
import { DEFAULT_SESSION_HOST_OPTIONS, SessionHost } from './session-host';
import { StatusRelay } from './status-relay';
import { linkOnHost, newTestSession, stateOn } from './test-support/emulator-link';
import { eventually } from './test-support/emulator-wait';
import { RecordingPublisher } from './test-support/recording-publisher';

const textOf = ({ message }: ReceivedMessage) => message.conversation ?? message.extendedTextMessage?.text;

/**
 * The fault schedule's seed 7: during a PostgreSQL outage a customer's send waited on the session's
 * key store (its Signal state is stored before the stanza leaves) past the gateway's wait, was
 * answered 504 ("outcome unknown"), and left once the database was back: the contact got a message
 * the customer was told nothing about. The gateway now sends how long it waits with the command
 * (Jumbe-Reply-Within-Ms); the worker answers "not sent" by then and lets nothing leave after it.
 * Real Baileys against the emulator, the real PostgreSQL behind a TCP proxy the test cuts.
 */
describe("a send that cannot leave before the caller's deadline (PostgreSQL outage)", () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let db: MigratedTestDatabase;
  let proxy: TcpProxy;
  let proxied: DataSource;
  /** In front of the sent-message archive alone (the second case hangs it). */
  let archiveProxy: TcpProxy;
  let archive: DataSource;
  const statuses = new RecordingPublisher();
  let host: SessionHost;
  let handler: SessionCommandHandler;

  beforeAll(async () => {
    await emulator.start();
    db = await openMigratedTestDatabase();
    proxy = await TcpProxy.inFrontOf(db.url);
    proxied = createDataSource(proxy.rewrite(db.url), {
      poolSize: 4,
      applicationName: 'jumbe-send-deadline',
    });
    await proxied.initialize();
    archiveProxy = await TcpProxy.inFrontOf(db.url);
    archive = createDataSource(archiveProxy.rewrite(db.url), {
      poolSize: 2,
      applicationName: 'jumbe-send-deadline-archive',
    });
    await archive.initialize();
    const sessions = new SessionRepository(db.dataSource);
    const driver = new WhatsAppNetworkDriver({
      // Only the session's Signal keys and credentials go through the proxy.
      credentials: new NetworkCredentialStore(proxied),
      inboundOutbox: new InboundOutboxRepository(db.dataSource),
      sentMessages: new SentMessageRepository(archive),
      secretKey: 'test-secret-key-with-enough-characters',
      logger: pino({ level: 'silent' }),
      baileysLogLevel: process.env['EMULATOR_LOG'] ?? 'silent',
      fetchVersion: async () => null,
      webSocketUrl: emulator.url,
      reconnectBaseMs: 50,
      reconnectMaxMs: 300,
      connectSpacingMs: 0,
      // Baileys pings every second and gives up after 6 s of silence (30 s and 35 s by default).
      keepAliveIntervalMs: 1_000,
    });
    host = new SessionHost(
      driver,
      {
        sessions,
        credentials: new NetworkCredentialStore(db.dataSource),
        inbound: new InboundRelay(new RecordingPublisher()),
        statuses: new StatusRelay(statuses),
        logger: pino({ level: 'silent' }),
      },
      DEFAULT_SESSION_HOST_OPTIONS,
    );
    handler = new SessionCommandHandler(host, pino({ level: 'silent' }));
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await proxied?.destroy().catch(() => undefined);
    await archiveProxy?.close();
    await archive?.destroy().catch(() => undefined);
    await emulator.stop();
    await db?.close();
  });

  it('is answered "not sent" while the database is still down, and never reaches the contact', async () => {
    const session = await newTestSession(db.dataSource, 'Acme');
    const { ref, base } = session;
    const phone = network.user('254733500001', 'Duka');
    const contact = network.user('254733500002', 'Juma');
    await linkOnHost(host, session, network, phone);
    // Through the worker's command handler, as the gateway's command arrives, waiting `waitMs`.
    const send = (text: string, waitMs: number) =>
      handler.handle(
        ref.shard,
        // As the gateway sends it (the handler parses whatever arrives, as from the bus).
        { ...base, type: 'message.send', message: { kind: 'text', body: { to: contact.phoneNumber, text } } },
        { headers: replyWithinHeaders(waitMs) },
      );
    const received = (text: string) =>
      network.receivedBy(contact).some((message) => textOf(message) === text);

    const before = await send('before the outage', 15_000);
    expect(before).toMatchObject({ ok: true });
    await eventually('the first received', () => received('before the outage'));

    await proxy.cut();
    let reply: CommandReply | undefined;
    void send('during the outage', 4_000).then((answer) => (reply = answer));
    const answered = await eventually('the answer while the database is down', () => reply, 15_000);
    expect(proxy.isCut).toBe(true);
    expect(answered).toMatchObject({ ok: false, error: { code: 'unavailable' } });

    await proxy.restore();
    const after = await send('after the outage', 30_000);
    expect(after.ok).toBe(true);
    await eventually('the later message received', () => received('after the outage'), 20_000);
    // Given time to leave had it been going to (it waited on the key store, now back).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(received('during the outage')).toBe(false);
  }, 120_000);

  it('is held after the reconnect when its answer came after the deadline, until a retry learns its id (chaos seed 49)', async () => {
    const session = await newTestSession(db.dataSource, 'Soko');
    const { ref } = session;
    const phone = network.user('254733500011', 'Soko');
    const contact = network.user('254733500012', 'Amani');
    const device = await linkOnHost(host, session, network, phone);
    const connected = async () => (await stateOn(host, session)) === 'connected';
    // `sendId`: one Idempotency-Key's send, the same on every try (the gateway's).
    const send = (text: string, waitMs: number, sendId?: string) =>
      handler.handle(
        ref.shard,
        {
          accountId: ref.accountId,
          sessionId: ref.sessionId,
          v: MESSAGE_SEND_VERSION,
          type: 'message.send',
          message: { kind: 'text', to: contact.phoneNumber, text },
          ...(sendId ? { sendId } : {}),
        },
        { headers: replyWithinHeaders(waitMs) },
      );
    const received = (text: string) =>
      network.receivedBy(contact).some((message) => textOf(message) === text);
    // A first message, so the next needs no device list or key bundle (queries a silence would hang).
    expect(await send('habari', 15_000)).toMatchObject({ ok: true });
    await eventually('the first received', () => received('habari'));

    // The connection goes quiet and the archive hangs: the stanza is written into the silence, and
    // the send is answered only after the caller's deadline (the gateway answered 504 by then).
    const silenced = network.connectionOf(device);
    archiveProxy.blackhole();
    expect(network.silenceConnection(device)).toBe(true);
    let reply: CommandReply | undefined;
    // The worker must answer 2 s after it took the command (REPLY_MARGIN_MS for the way back).
    const late = 'into the silence, answered late';
    void send(late, REPLY_MARGIN_MS + 2_000, 'key-1').then((answer) => (reply = answer));
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(reply).toBeUndefined();
    await archiveProxy.restore();
    const answer = await eventually('the late answer', () => reply, 15_000);
    // Answered with its id (it did leave), though by then the caller had gone.
    expect(answer).toMatchObject({ ok: true });
    const result = (answer.ok ? answer.result : undefined) as
      { id?: string; key?: { id?: string } } | undefined;
    const lateId = result?.key?.id ?? result?.id;
    expect(lateId).toEqual(expect.any(String));

    await eventually(
      'a new connection',
      () => ![undefined, silenced].includes(network.connectionOf(device)),
      30_000,
    );
    await eventually('connected again', connected, 30_000);
    expect(await send('after the reconnect', 15_000)).toMatchObject({ ok: true });
    await eventually('the later message received', () => received('after the reconnect'), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Held: the caller was told "outcome unknown", and nothing sent it again (nor reported it failed).
    expect(received(late)).toBe(false);
    const statusesOf = (id: string | undefined) =>
      statuses.events
        .map((event) => (event.payload as { message?: { id?: string; status?: string } }).message)
        .filter((message) => message?.id === id)
        .map((message) => message?.status);
    expect(statusesOf(lateId)).toEqual([]);

    // The customer retries under the same Idempotency-Key, in time: it learns the id, and the
    // message goes out now, once, under that id.
    const retried = await send(late, 15_000, 'key-1');
    const retriedResult = (retried.ok ? retried.result : undefined) as
      { id?: string; key?: { id?: string } } | undefined;
    expect(retriedResult?.key?.id ?? retriedResult?.id).toBe(lateId);
    await eventually('the held message received', () => received(late), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const copies = network.receivedBy(contact).filter((message) => textOf(message) === late);
    expect(copies.map((message) => message.id)).toEqual([lateId]);
  }, 120_000);
});
