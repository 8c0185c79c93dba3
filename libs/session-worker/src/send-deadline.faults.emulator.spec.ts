import '@jumbe/whatsapp-emulator/trust-preload';
import type { CommandReply } from '@jumbe/contracts';
import type { SessionView } from '@jumbe/domain';
import { replyWithinHeaders } from '@jumbe/messaging';
import { WhatsAppNetworkDriver } from '@jumbe/network';
import {
  AccountRepository,
  createDataSource,
  InboundOutboxRepository,
  NetworkCredentialStore,
  openMigratedTestDatabase,
  PlanRepository,
  SentMessageRepository,
  SessionRepository,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import { TcpProxy } from '@jumbe/testing';
import { EmulatedNetwork, type ReceivedMessage, WhatsAppEmulator } from '@jumbe/whatsapp-emulator';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { InboundRelay } from './inbound-relay';
import { SessionCommandHandler } from './session-command-handler';
import { DEFAULT_SESSION_HOST_OPTIONS, SessionHost } from './session-host';
import { StatusRelay } from './status-relay';
import { sessionInUnusedShard } from './test-support/host-harness';
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
    const sessions = new SessionRepository(db.dataSource);
    const driver = new WhatsAppNetworkDriver({
      // Only the session's Signal keys and credentials go through the proxy.
      credentials: new NetworkCredentialStore(proxied),
      inboundOutbox: new InboundOutboxRepository(db.dataSource),
      sentMessages: new SentMessageRepository(db.dataSource),
      secretKey: 'test-secret-key-with-enough-characters',
      logger: pino({ level: 'silent' }),
      baileysLogLevel: process.env['EMULATOR_LOG'] ?? 'silent',
      fetchVersion: async () => null,
      webSocketUrl: emulator.url,
      reconnectBaseMs: 50,
      reconnectMaxMs: 300,
      connectSpacingMs: 0,
    });
    host = new SessionHost(
      driver,
      {
        sessions,
        credentials: new NetworkCredentialStore(db.dataSource),
        inbound: new InboundRelay(new RecordingPublisher()),
        statuses: new StatusRelay(new RecordingPublisher()),
        logger: pino({ level: 'silent' }),
      },
      DEFAULT_SESSION_HOST_OPTIONS,
    );
    handler = new SessionCommandHandler(host, pino({ level: 'silent' }));
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await proxied?.destroy().catch(() => undefined);
    await emulator.stop();
    await db?.close();
  });

  it('is answered "not sent" while the database is still down, and never reaches the contact', async () => {
    const planId = (
      await new PlanRepository(db.dataSource).create({ name: 'basic', monthlyApiHits: 1_000, maxSessions: 5 })
    ).id;
    const accountId = (await new AccountRepository(db.dataSource).create({ name: 'Acme', planId })).id;
    const ref = { accountId, ...sessionInUnusedShard(accountId, new Set()) };
    const base = { v: 1 as const, accountId: ref.accountId, sessionId: ref.sessionId };
    await host.adoptShard(ref.shard, 1);
    await host.execute({ ...base, type: 'session.start', maxSessions: 5 });
    const qr = await eventually('a QR', async () => {
      const shown = (await host.execute({ ...base, type: 'session.qr' })) as { qr: string };
      return shown.qr;
    });
    const phone = network.user('254733500001', 'Duka');
    const contact = network.user('254733500002', 'Juma');
    await network.scanQr(phone, qr);
    await eventually(
      'connected',
      async () =>
        ((await host.execute({ ...base, type: 'session.status' })) as SessionView).state === 'connected',
    );
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
});
