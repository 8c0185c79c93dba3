import '@jumbe/whatsapp-emulator/trust-preload';
import { ApiError, type GroupOperation, type SessionCommand, streamEventSchema } from '@jumbe/contracts';
import { WhatsAppNetworkDriver } from '@jumbe/network';
import {
  AccountRepository,
  InboundOutboxRepository,
  NetworkCredentialStore,
  openMigratedTestDatabase,
  PlanRepository,
  SentMessageRepository,
  SessionRepository,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import { EmulatedNetwork, WhatsAppEmulator } from '@jumbe/whatsapp-emulator';
import pino from 'pino';
import { InboundRelay } from './inbound-relay';
import { SessionHost } from './session-host';
import { StatusRelay } from './status-relay';
import { sessionInUnusedShard } from './test-support/host-harness';
import { eventually } from './test-support/emulator-wait';
import { RecordingPublisher } from './test-support/recording-publisher';

/**
 * Groups through the whole worker (issue 30 item 2): the `group` command on SessionHost, the real
 * WhatsApp driver and unmodified Baileys against the emulator's group IQs, PostgreSQL stores; the
 * network's refusals answered as the contract's errors, the w:gp2 notifications published as
 * `group.participants` / `group.updated`.
 */
describe('SessionHost: groups on real Baileys against the WhatsApp emulator', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254720099001', 'Duka');
  const member = network.user('254720099002', 'Akinyi');
  const refusing = network.user('254720099003', 'Baraka');
  const announced = new RecordingPublisher();
  let db: MigratedTestDatabase;
  let host: SessionHost;
  let ref: { accountId: string; sessionId: string; shard: number };

  const cmd = () => ({ v: 1 as const, accountId: ref.accountId, sessionId: ref.sessionId });
  const group = (operation: GroupOperation) =>
    host.execute({ ...cmd(), type: 'group', operation } satisfies SessionCommand);

  beforeAll(async () => {
    network.groupAdmin.refuseAdds(refusing);
    await emulator.start();
    db = await openMigratedTestDatabase();
    const sessions = new SessionRepository(db.dataSource);
    const credentials = new NetworkCredentialStore(db.dataSource);
    const planId = (
      await new PlanRepository(db.dataSource).create({ name: 'basic', monthlyApiHits: 1_000, maxSessions: 3 })
    ).id;
    const accountId = (await new AccountRepository(db.dataSource).create({ name: 'Duka', planId })).id;
    ref = { accountId, ...sessionInUnusedShard(accountId, new Set()) };
    const driver = new WhatsAppNetworkDriver({
      credentials,
      inboundOutbox: new InboundOutboxRepository(db.dataSource),
      sentMessages: new SentMessageRepository(db.dataSource),
      secretKey: 'test-secret-key-with-enough-characters',
      logger: pino({ level: 'silent' }),
      baileysLogLevel: 'silent',
      fetchVersion: async () => null,
      webSocketUrl: emulator.url,
      reconnectBaseMs: 50,
      reconnectMaxMs: 200,
      connectSpacingMs: 0,
    });
    host = new SessionHost(driver, {
      sessions,
      credentials,
      inbound: new InboundRelay(new RecordingPublisher()),
      statuses: new StatusRelay(announced),
      logger: pino({ level: 'silent' }),
    });
    await host.adoptShard(ref.shard, 1);
    await host.execute({ ...cmd(), type: 'session.start', maxSessions: 3 });
    const qr = await eventually('a QR', async () => {
      const shown = (await host.execute({ ...cmd(), type: 'session.qr' })) as { qr: string };
      return shown.qr;
    });
    await network.scanQr(phone, qr);
    await eventually('connected', async () => {
      const view = (await host.execute({ ...cmd(), type: 'session.status' })) as { state: string };
      return view.state === 'connected';
    });
  }, 30_000);
  afterAll(async () => {
    await host?.dropShard(ref.shard);
    await emulator.stop();
    await db?.close();
  });

  it('creates a group, adds with one result per participant, and publishes what changed', async () => {
    const created = (await group({ op: 'create', subject: 'Wauzaji', participants: [member.jid] })) as {
      id: string;
    };
    const added = await group({
      op: 'participants',
      groupId: created.id,
      action: 'add',
      participants: [refusing.jid],
    });
    expect(added).toEqual({
      groupId: created.id,
      action: 'add',
      results: [{ participant: refusing.jid, ok: false, status: 403, reason: 'not_allowed' }],
    });
    await group({ op: 'update', groupId: created.id, subject: 'Wauzaji wa Soko' });

    const events = await eventually('the group events', async () => {
      const found = announced.events.map((event) => streamEventSchema.parse(event.payload));
      return found.some((event) => event.event === 'group.updated') && found;
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        event: 'group.updated',
        customerId: ref.accountId,
        sessionId: ref.sessionId,
        group: expect.objectContaining({ id: created.id, subject: 'Wauzaji wa Soko' }),
      }),
    );
  }, 20_000);

  it("answers the network's refusals as the contract's errors", async () => {
    const unknown = await group({ op: 'info', groupId: '120363099999999999@g.us' }).catch(
      (error: unknown) => error,
    );
    expect(unknown).toBeInstanceOf(ApiError);
    expect(unknown).toMatchObject({ code: 'not_found' });
    const badCode = await group({ op: 'join', code: 'AAAAAAAAAAAAAAAAAAAAAA' }).catch(
      (error: unknown) => error,
    );
    expect(badCode).toMatchObject({ code: 'not_found' });
  }, 20_000);
});
