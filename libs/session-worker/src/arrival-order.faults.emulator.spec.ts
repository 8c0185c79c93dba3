import '@jumbe/whatsapp-emulator/trust-preload';
import type { SessionView } from '@jumbe/domain';
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
import { EmulatedNetwork, WhatsAppEmulator } from '@jumbe/whatsapp-emulator';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { InboundRelay } from './inbound-relay';
import { DEFAULT_SESSION_HOST_OPTIONS, SessionHost } from './session-host';
import { StatusRelay } from './status-relay';
import { sessionInUnusedShard } from './test-support/host-harness';
import { eventually } from './test-support/emulator-wait';
import { RecordingPublisher } from './test-support/recording-publisher';

/**
 * Order per chat after a PostgreSQL outage (the fault schedule's seed 7): messages a contact sends
 * while the session's key store is down each wait on it inside Baileys, and are handed on once it
 * is back, in the order they arrived. Real Baileys against the emulator, PostgreSQL behind a proxy.
 */
describe('messages received during a PostgreSQL outage', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let db: MigratedTestDatabase;
  let proxy: TcpProxy;
  let proxied: DataSource;
  let host: SessionHost;
  const publisher = new RecordingPublisher();

  beforeAll(async () => {
    await emulator.start();
    db = await openMigratedTestDatabase();
    proxy = await TcpProxy.inFrontOf(db.url);
    proxied = createDataSource(proxy.rewrite(db.url), {
      poolSize: 4,
      applicationName: 'jumbe-arrival-order',
    });
    await proxied.initialize();
    const driver = new WhatsAppNetworkDriver({
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
      redeliveryIntervalMs: 50,
    });
    host = new SessionHost(
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
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await proxied?.destroy().catch(() => undefined);
    await emulator.stop();
    await db?.close();
  });

  it('reach the customer in the order the contacts sent them, per chat', async () => {
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
    const phone = network.user('254733600001', 'Duka');
    const contacts = [network.user('254733600002', 'Juma'), network.user('254733600003', 'Amina')];
    await network.scanQr(phone, qr);
    await eventually(
      'connected',
      async () =>
        ((await host.execute({ ...base, type: 'session.status' })) as SessionView).state === 'connected',
    );
    const texts = () =>
      publisher.events.map((event) => (event.payload as { message?: { text?: string } }).message?.text);
    for (const contact of contacts)
      await network.sendMessage(contact, phone, { conversation: `hello ${contact.name}` });
    await eventually('the first ones delivered', () => texts().length === 2);

    await proxy.cut();
    const sent: string[] = [];
    for (let n = 1; n <= 4; n++) {
      for (const contact of contacts) {
        const text = `${contact.name} ${n}`;
        await network.sendMessage(contact, phone, { conversation: text });
        sent.push(text);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await proxy.restore();

    await eventually('all delivered', () => sent.every((text) => texts().includes(text)), 60_000);
    for (const contact of contacts) {
      const ofContact = (list: (string | undefined)[]) =>
        list.filter((text) => text?.startsWith(`${contact.name} `));
      expect(ofContact(texts())).toEqual(ofContact(sent));
    }
  }, 120_000);
});
