import '@jumbe/whatsapp-emulator/trust-preload';
import type { SessionView } from '@jumbe/domain';
import { WhatsAppNetworkDriver } from '@jumbe/network';
import {
  AccountRepository,
  InboundOutboxRepository,
  NetworkCredentialStore,
  openMigratedTestDatabase,
  PlanRepository,
  SentMessageRepository,
  SessionProxyRepository,
  SessionRepository,
  SessionStartRepository,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import { EmulatedNetwork, WhatsAppEmulator } from '@jumbe/whatsapp-emulator';
import { eventuallyValue } from '@jumbe/testing';
import { observeNetworkDriver } from '@jumbe/telemetry';
import pino from 'pino';
import { InboundRelay } from './inbound-relay';
import { SessionHost } from './session-host';
import { StatusRelay } from './status-relay';
import { sessionInUnusedShard } from './test-support/host-harness';
import { RecordingPublisher } from './test-support/recording-publisher';

type Ref = { accountId: string; sessionId: string };

/**
 * What a restored session asks PostgreSQL before it connects, counted statement by statement on
 * the real path (SessionHost, the WhatsApp driver as the worker composes it, real Baileys against
 * the emulator, PostgreSQL). A worker taking shards over opens all their sessions at once, so each
 * read per open is one more transaction per restored session (issue 28's restore bench: the
 * proxy, creds and key index were three).
 */
describe('statements of a restore (real Baileys against the WhatsApp emulator)', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let db: MigratedTestDatabase;
  let sessions: SessionRepository;
  let credentials: NetworkCredentialStore;
  let planId: string;
  const hosts: { host: SessionHost; shard: number }[] = [];

  beforeAll(async () => {
    await emulator.start();
    db = await openMigratedTestDatabase();
    sessions = new SessionRepository(db.dataSource);
    credentials = new NetworkCredentialStore(db.dataSource);
    planId = (
      await new PlanRepository(db.dataSource).create({ name: 'basic', monthlyApiHits: 1_000, maxSessions: 3 })
    ).id;
  });
  afterEach(async () => {
    for (const { host, shard } of hosts.splice(0)) if (host.ownsShard(shard)) await host.dropShard(shard);
  });
  afterAll(async () => {
    await emulator.stop();
    await db?.close();
  });

  /** One worker: SessionHost and the WhatsApp driver with the stores createNetworkDriver gives it. */
  function worker(shard: number) {
    const driver = observeNetworkDriver(
      new WhatsAppNetworkDriver({
        credentials,
        inboundOutbox: new InboundOutboxRepository(db.dataSource),
        sentMessages: new SentMessageRepository(db.dataSource),
        sessionProxies: new SessionProxyRepository(db.dataSource),
        sessionStart: new SessionStartRepository(db.dataSource),
        secretKey: 'test-secret-key-with-enough-characters',
        logger: pino({ level: 'silent' }),
        baileysLogLevel: process.env['EMULATOR_LOG'] ?? 'silent',
        fetchVersion: async () => null,
        webSocketUrl: emulator.url,
        reconnectBaseMs: 50,
        reconnectMaxMs: 200,
        connectSpacingMs: 0,
        redeliveryIntervalMs: 50,
      }),
    );
    const host = new SessionHost(driver, {
      sessions,
      credentials,
      inbound: new InboundRelay(new RecordingPublisher()),
      statuses: new StatusRelay(new RecordingPublisher()),
      logger: pino({ level: 'silent' }),
    });
    hosts.push({ host, shard });
    return host;
  }

  const cmd = (ref: Ref) => ({ v: 1 as const, accountId: ref.accountId, sessionId: ref.sessionId });
  const connected = (host: SessionHost, ref: Ref) =>
    eventuallyValue(
      'connected',
      async () =>
        ((await host.execute({ ...cmd(ref), type: 'session.status' })) as SessionView).state === 'connected',
      20_000,
    );

  it('reads the proxy, the creds and the key index of a restored session in one statement', async () => {
    const accountId = (await new AccountRepository(db.dataSource).create({ name: 'Acme', planId })).id;
    const ref = { accountId, ...sessionInUnusedShard(accountId, new Set()) };
    const first = worker(ref.shard);
    await first.adoptShard(ref.shard, 1);
    await first.execute({ ...cmd(ref), type: 'session.start', maxSessions: 3 });
    const qr = await eventuallyValue(
      'a QR',
      async () => {
        const shown = (await first.execute({ ...cmd(ref), type: 'session.qr' })) as {
          state: string;
          qr: string;
        };
        return shown.state === 'qr_ready' && shown.qr;
      },
      20_000,
    );
    await network.scanQr(network.user('254720099001', 'Duka'), qr);
    await connected(first, ref);
    // Handed over: the first worker lets the shard go, the next one restores its session.
    await first.dropShard(ref.shard);

    const query = jest.spyOn(db.dataSource, 'query');
    let calls: typeof query.mock.calls = [];
    try {
      const next = worker(ref.shard);
      await next.adoptShard(ref.shard, 2);
      await connected(next, ref);
    } finally {
      calls = query.mock.calls.slice();
      query.mockRestore();
    }
    // This session's statements (each names its account first), whitespace folded.
    const statements = calls
      .filter(([, parameters]) => parameters?.[0] === ref.accountId)
      .map(([text, parameters]) => ({ text: text.replace(/\s+/g, ' '), parameters: parameters ?? [] }));

    const proxyReads = statements.filter(({ text }) => text.includes('FROM session_proxies'));
    expect(proxyReads).toHaveLength(1);
    expect(proxyReads[0]?.text).toContain('FROM network_credentials');
    // Neither the creds item nor the ids stored are read on their own.
    expect(
      statements.filter(({ text }) => text.startsWith('SELECT kind, key_id FROM network_credentials')),
    ).toEqual([]);
    expect(
      statements.filter(
        ({ text, parameters }) =>
          text.startsWith('SELECT key_id, value FROM network_credentials') && parameters[2] === 'creds',
      ),
    ).toEqual([]);
  }, 60_000);
});
