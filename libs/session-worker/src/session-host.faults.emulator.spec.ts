import '@jumbe/whatsapp-emulator/trust-preload';
import {
  newMemberId,
  RedisShardLeaseStore,
  RedisWorkerRegistry,
  ShardKeeper,
  ThreadedLeaseUpkeep,
  createRedisClient,
  closeRedisClient,
  redisClientOptions,
} from '@jumbe/coordination';
import { type SessionCommand } from '@jumbe/contracts';
import { shardOf, shardSubject, type SessionView } from '@jumbe/domain';
import {
  NamespacedMessageBus,
  NatsMessageBus,
  type EventPublisher,
  type OutgoingEvent,
} from '@jumbe/messaging';
import { type CredentialStore, WhatsAppNetworkDriver, type WhatsAppNetworkOptions } from '@jumbe/network';
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
import { eventuallyValue, TcpProxy } from '@jumbe/testing';
import {
  EmulatedNetwork,
  type EmulatedUser,
  type LinkedDevice,
  type ReceivedMessage,
  WhatsAppEmulator,
} from '@jumbe/whatsapp-emulator';
import { observeNetworkDriver } from '@jumbe/telemetry';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { InboundRelay } from './inbound-relay';
import { SessionCommandHandler } from './session-command-handler';
import { DEFAULT_SESSION_HOST_OPTIONS, SessionHost } from './session-host';
import { StatusRelay } from './status-relay';
import { sessionInUnusedShard } from './test-support/host-harness';
import { RecordingPublisher } from './test-support/recording-publisher';
import { WorkerShardOwner } from './worker-shard-owner';

type Ref = { accountId: string; sessionId: string };

const REDIS_URL = process.env['JUMBE_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const NATS_URL = process.env['JUMBE_TEST_NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** The shared wait for a value, with this file's 20 s default (an emulated login takes a while). */
const eventually = <T>(what: string, probe: () => T | Promise<T>, timeoutMs = 20_000) =>
  eventuallyValue(what, probe, timeoutMs);

/** The durable event stream, in memory. */
class MemoryPublisher implements EventPublisher {
  readonly events: OutgoingEvent[] = [];
  async publish(event: OutgoingEvent): Promise<void> {
    this.events.push(structuredClone(event));
  }
}

/**
 * Issue 28's faults on the real path: the worker's SessionHost with the real WhatsApp driver,
 * unmodified Baileys against the emulator, and the real PostgreSQL, Redis and NATS. Worker
 * connections to the emulator (and to PostgreSQL where a test says so) go through TCP proxies
 * the tests cut and restore.
 */
describe('SessionHost on real Baileys under faults (issue 28)', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let db: MigratedTestDatabase;
  let sessions: SessionRepository;
  let credentials: NetworkCredentialStore;
  let planId: string;
  let phones = 0;
  const usedShards = new Set<number>();
  const cleanups: (() => Promise<unknown>)[] = [];

  // A throwaway database migrated on a loaded machine can take longer than Jest's 5 s default.
  beforeAll(async () => {
    await emulator.start();
    db = await openMigratedTestDatabase();
    sessions = new SessionRepository(db.dataSource);
    credentials = new NetworkCredentialStore(db.dataSource);
    planId = (
      await new PlanRepository(db.dataSource).create({ name: 'basic', monthlyApiHits: 1_000, maxSessions: 5 })
    ).id;
  }, 60_000);
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });
  afterAll(async () => {
    await emulator.stop();
    await db?.close();
  });

  /** A TCP proxy in front of the emulator: the worker's network, which the test can take away. */
  async function emulatorLink(): Promise<{ proxy: TcpProxy; url: string }> {
    const target = new URL(emulator.url);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port) });
    cleanups.push(() => proxy.close());
    const url = new URL(emulator.url);
    url.port = String(proxy.port);
    return { proxy, url: url.toString() };
  }

  /** One worker: SessionHost + the real driver, reaching the emulator at `url`. */
  function worker(url = emulator.url, options: Partial<WhatsAppNetworkOptions> = {}) {
    const publisher = new MemoryPublisher();
    const raw = new WhatsAppNetworkDriver({
      credentials,
      inboundOutbox: options.inboundOutbox ?? new InboundOutboxRepository(db.dataSource),
      sentMessages: new SentMessageRepository(db.dataSource),
      secretKey: 'test-secret-key-with-enough-characters',
      logger: pino({ level: 'silent' }),
      baileysLogLevel: process.env['EMULATOR_LOG'] ?? 'silent',
      fetchVersion: async () => null,
      webSocketUrl: url,
      loginTimeoutMs: 30_000,
      reconnectBaseMs: 50,
      reconnectMaxMs: 300,
      connectSpacingMs: 0,
      redeliveryIntervalMs: 50,
      ...options,
    });
    // Behind the tracing wrapper, as sessionWorkerBindings composes it.
    const driver = observeNetworkDriver(raw);
    const host = new SessionHost(
      driver,
      {
        sessions,
        credentials,
        inbound: new InboundRelay(publisher),
        statuses: new StatusRelay(new RecordingPublisher()),
        logger: pino({ level: 'silent' }),
      },
      DEFAULT_SESSION_HOST_OPTIONS,
    );
    const adopted = new Set<number>();
    cleanups.push(async () => {
      for (const shard of adopted) if (host.ownsShard(shard)) await host.dropShard(shard);
    });
    return {
      host,
      /** The driver itself, for the connections it has open. */
      raw,
      publisher,
      adopt: (shard: number, token: number) => {
        adopted.add(shard);
        return host.adoptShard(shard, token);
      },
    };
  }

  async function newSession(): Promise<Ref & { shard: number }> {
    const accountId = (await new AccountRepository(db.dataSource).create({ name: 'Acme', planId })).id;
    return { accountId, ...sessionInUnusedShard(accountId, usedShards) };
  }

  /** Another session id of the account in the same shard as `ref`. */
  function neighbourOf(ref: Ref & { shard: number }): Ref & { shard: number } {
    for (let n = 0; ; n++) {
      const sessionId = `neighbour-${n}`;
      if (shardOf(ref.accountId, sessionId) === ref.shard)
        return { accountId: ref.accountId, sessionId, shard: ref.shard };
    }
  }

  const newPhone = (): EmulatedUser => network.user(`2547300${String(++phones).padStart(5, '0')}`, 'Duka');
  const cmd = (ref: Ref) => ({ v: 1 as const, accountId: ref.accountId, sessionId: ref.sessionId });
  const start = (ref: Ref): SessionCommand => ({ ...cmd(ref), type: 'session.start', maxSessions: 5 });
  const status = async (host: SessionHost, ref: Ref) =>
    (await host.execute({ ...cmd(ref), type: 'session.status' })) as SessionView;
  const stored = async (ref: Ref) => (await sessions.find(ref))!;

  async function qrOf(host: SessionHost, ref: Ref): Promise<string> {
    return eventually('a QR', async () => {
      const shown = (await host.execute({ ...cmd(ref), type: 'session.qr' })) as {
        state: string;
        qr: string;
      };
      return shown.state === 'qr_ready' && shown.qr;
    });
  }

  const connected = (host: SessionHost, ref: Ref, timeoutMs?: number) =>
    eventually('connected', async () => (await status(host, ref)).state === 'connected', timeoutMs);

  /** Starts the session on `host`, scans its QR with a new phone, and waits for it stored `connected`. */
  async function linked(host: SessionHost, ref: Ref): Promise<{ phone: EmulatedUser; device: LinkedDevice }> {
    await host.execute(start(ref));
    const phone = newPhone();
    const device = await network.scanQr(phone, await qrOf(host, ref));
    await connected(host, ref);
    await eventually('stored connected', async () => (await stored(ref)).state === 'connected');
    return { phone, device };
  }

  describe('a shard lease lost (item 2)', () => {
    // The old owner learns of the loss while a command it took is still running, which holds its
    // bus unsubscribe (and so, before the fix, its shard's tokens) for as long as that command
    // lasts; its session is meanwhile backing off after a dropped connection.
    it('the old owner stops reconnecting at once: the new owner keeps the session connected, never kicked off', async () => {
      const prefix = `jumbe-test:${randomUUID()}:`;
      const redis = createRedisClient(REDIS_URL, `jumbe-test-faults-${randomUUID().slice(0, 8)}`);
      cleanups.push(async () => {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        await closeRedisClient(redis);
      });
      const namespace = `faults${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      const nats = await NatsMessageBus.connect(NATS_URL, 'jumbe-test-faults');
      cleanups.push(() => nats.close());
      const bus = new NamespacedMessageBus(nats, namespace);

      const ref = await newSession();
      // The old owner: a keeper on Redis (leases renewed on a thread), serving its shards on NATS,
      // with a pairing code that waits long for a WhatsApp it cannot reach.
      const { proxy, url } = await emulatorLink();
      const old = worker(url, { pairingCodeWaitMs: 25_000 });
      const workerId = newMemberId();
      const keeper = new ShardKeeper(
        workerId,
        new RedisShardLeaseStore(redis, prefix),
        new RedisWorkerRegistry(redis, prefix),
        new WorkerShardOwner(bus, old.host, new SessionCommandHandler(old.host, pino({ level: 'silent' }))),
        pino({ level: 'silent' }),
        { tickMs: 250, leaseTtlMs: 4_000, heartbeatTtlMs: 2_000 },
        new ThreadedLeaseUpkeep({
          redisUrl: REDIS_URL,
          redisOptions: redisClientOptions(`jumbe-test-faults-upkeep-${randomUUID().slice(0, 8)}`),
          keyPrefix: prefix,
          stallLimitMs: 30_000,
        }),
      );
      cleanups.push(() => keeper.stop());
      await keeper.start();
      await eventually(
        'the shard held',
        () => keeper.heldShards().includes(ref.shard) && old.host.ownsShard(ref.shard),
      );
      const { phone, device } = await linked(old.host, ref);

      // The old owner's network goes: its session backs off and keeps trying.
      await proxy.cut();
      await eventually(
        'connecting on the old owner',
        async () => (await status(old.host, ref)).state === 'connecting',
      );
      // A command in flight on its shard: a pairing code for a neighbour, waiting for WhatsApp.
      const neighbour = neighbourOf(ref);
      const pairing = bus.request(
        shardSubject(ref.shard),
        { ...cmd(neighbour), type: 'session.pairing_code', phoneNumber: '254799000001', maxSessions: 5 },
        { timeoutMs: 40_000 },
      );
      pairing.catch(() => undefined);
      await eventually(
        'the neighbour waiting for a login',
        async () => (await sessions.find(neighbour))?.state,
      );

      // Another member takes the lease (the old one's renewals find it gone) and the shard.
      const leases = new RedisShardLeaseStore(redis, prefix);
      const held = (await leases.holder(ref.shard))!;
      await leases.release(ref.shard, held.workerId, held.token);
      const newToken = (await leases.acquire(ref.shard, 'faults-new', 60_000))!;
      const next = worker();
      await next.adopt(ref.shard, newToken);
      await connected(next.host, ref);
      await eventually('stored connected by the new owner', async () => {
        const row = await stored(ref);
        return row.state === 'connected' && row.ownerToken === newToken;
      });
      await eventually('the old owner to notice', () => !keeper.heldShards().includes(ref.shard));

      // The old owner's network comes back while its command still runs.
      const accepted = proxy.connectionsAccepted;
      await proxy.restore();
      // Its command ends (at once once the shard's sessions closed; else when its wait is over).
      await pairing;
      await eventually('the old owner done with the shard', () => !old.host.ownsShard(ref.shard));

      expect(proxy.connectionsAccepted).toBe(accepted);
      expect(await status(next.host, ref)).toMatchObject({
        state: 'connected',
        phoneNumber: phone.phoneNumber,
      });
      expect(await stored(ref)).toMatchObject({ state: 'connected', reason: null, ownerToken: newToken });
      expect(network.linkedDevices(phone)).toEqual([device]);
    }, 90_000);

    // Defence in depth: should a stale worker still reconnect (a stall longer than anything its
    // guards see), the session it kicked off re-checks that it owns the session and comes back.
    it('a 440 from a stale worker that never learned it lost the shard: the owner reconnects rather than end connection_replaced', async () => {
      const ref = await newSession();
      const { proxy, url } = await emulatorLink();
      const stale = worker(url);
      await stale.adopt(ref.shard, 1);
      const { phone, device } = await linked(stale.host, ref);

      // The stale worker loses its network; the shard is taken over without it ever being told.
      await proxy.cut();
      // Stored before the take-over: its next write (when it is connected again) is the first fenced.
      await eventually(
        'stored connecting by the stale worker',
        async () => (await stored(ref)).state === 'connecting',
      );
      const owner = worker();
      await owner.adopt(ref.shard, 2);
      await connected(owner.host, ref);
      await eventually('stored connected by the owner', async () => (await stored(ref)).ownerToken === 2);

      // Its network comes back: its backoff reconnects and WhatsApp replaces the owner's socket;
      // the stale worker steps back (its first state write is fenced) and the owner logs in again.
      // Counted by logins, not by which connection is open when polled: the stale worker's can
      // last less than a poll before the owner's next login replaces it.
      const jid = `${device.user.phoneNumber}:${device.device}@s.whatsapp.net`;
      const loginsOf = () => network.logins.filter((login) => login === jid).length;
      const before = loginsOf();
      await proxy.restore();
      await eventually(
        'the stale worker logged in, then the owner again',
        () => loginsOf() >= before + 2,
        60_000,
      );
      await eventually('the stale worker gone', () => stale.raw.openSessions === 0);
      await connected(owner.host, ref);
      expect(owner.raw.openSessions).toBe(1);
      expect(await stored(ref)).toMatchObject({ state: 'connected', reason: null, ownerToken: 2 });
      expect(await status(owner.host, ref)).toMatchObject({
        state: 'connected',
        phoneNumber: phone.phoneNumber,
      });
      expect(network.linkedDevices(phone)).toEqual([device]);
    }, 90_000);
  });

  describe('a worker killed right after a send (the fault schedule: seeds 2 and 4)', () => {
    // What a SIGKILL does to the credentials: from one moment on no write lands any more, while
    // whatever the worker had already written to the network stays written. Baileys commits a
    // send's Signal changes after the stanza is out, so the next owner loaded no session for a
    // contact the killed worker had just written to first: it could not decrypt the contact's
    // answer ("No matching sessions found for message"; the message was lost).
    //
    // The killed worker stays in this process, though, and a killed process keeps nothing: once
    // it is gone, every wait it had on the store must end too (its writes answered `fenced`:
    // still none lands). Left hanging, they held libsignal's job queue, which is one per process
    // and per remote device address (libsignal/src/queue_job.js, not per socket or session): a
    // Signal job of the dead worker for the account's own phone (an E2EE session injected for a
    // send, waiting for a key read behind the cut-off commit of the history notification's
    // decryption) kept that address's queue forever, and the next owner's decryption of the same
    // notification queued behind it; holding Baileys' message mutex, it kept the contact's answer
    // from ever being decrypted (lost in 3 of 12 runs after the stale-worker case, which only
    // changed the timing).
    it("a first message to a contact: the next owner decrypts the contact's answer, and the contact the next owner's send", async () => {
      const ref = await newSession();
      let dead = false;
      let gone = false;
      let sessionWriteCutOff = false;
      const cutOff: (() => void)[] = [];
      const never = () =>
        new Promise<'fenced'>((resolve) => {
          cutOff.push(() => resolve('fenced'));
        });
      // Killed at the moment a Signal session is written: that write never lands. Other writes
      // still land, so that one still in flight from the link (creds, pre-keys) cannot hold the
      // send up before it reaches the session write, whatever order a loaded machine runs them in.
      const dying: CredentialStore = {
        read: (r, kind, ids) => credentials.read(r, kind, ids),
        write: (r, token, changes) => {
          if (gone) return Promise.resolve('fenced');
          if (!dead || !changes.some((change) => change.kind === 'session')) {
            return credentials.write(r, token, changes);
          }
          sessionWriteCutOff = true;
          return never();
        },
        clear: (r, token) => {
          if (gone) return Promise.resolve('fenced');
          return dead ? never() : credentials.clear(r, token);
        },
      };
      /** The worker is gone: what it waited for ends with it, none of it written. */
      const bury = () => {
        gone = true;
        for (const release of cutOff.splice(0)) release();
      };
      const { proxy, url } = await emulatorLink();
      const first = worker(url, { credentials: dying, sendTimeoutMs: 5_000 });
      // Before the worker's own clean-up (cleanups run last first), which waits for its writes.
      cleanups.push(async () => bury());
      await first.adopt(ref.shard, 1);
      const { phone } = await linked(first.host, ref);
      const contact = network.user('254733600001', 'Pendo');
      const failuresBefore = network.failures.length;
      const send = (host: SessionHost, text: string) =>
        host.execute({
          ...cmd(ref),
          v: 2,
          type: 'message.send',
          message: { kind: 'text', to: contact.phoneNumber, text },
        } as SessionCommand) as Promise<{ key: { id: string } }>;

      dead = true;
      let answered = false;
      void send(first.host, 'Your order is ready')
        .catch(() => undefined)
        .finally(() => {
          answered = true;
        });
      // Its Signal session write is cut off (before the fix: after the stanza went out) and the
      // send is answered (its commit never lands, so it times out); then the worker is gone.
      await eventually('the send cut off and answered', () => sessionWriteCutOff && answered);
      await proxy.cut();
      bury();

      const next = worker();
      await next.adopt(ref.shard, 2);
      await connected(next.host, ref, 30_000);
      const delivered = () =>
        next.publisher.events.map((event) => (event.payload as { message?: { id?: string } }).message?.id);
      const answer = await network.sendMessage(contact, phone, { conversation: 'Which order?' });
      await eventually("the contact's answer delivered by the next owner", () =>
        delivered().includes(answer),
      );
      const sent = await send(next.host, 'Order 7');
      await eventually("the contact to decrypt the next owner's send", () =>
        network.receivedBy(contact).some((message) => message.id === sent.key.id),
      );
      expect(network.failures.slice(failuresBefore)).toEqual([]);
    }, 90_000);
  });

  describe('a transient WhatsApp problem ended a session (item 3)', () => {
    it('the next owner resumes it from its credentials without a scan; a logged-out neighbour stays down', async () => {
      const ref = await newSession();
      const first = worker();
      await first.adopt(ref.shard, 1);
      const { phone, device } = await linked(first.host, ref);
      // Ended by a refusal storm under the earlier policy (ended sessions kept their number and
      // credentials), and a logged-out neighbour in the same shard.
      await first.host.dropShard(ref.shard);
      await sessions.saveState(ref, 1, {
        state: 'disconnected',
        phoneNumber: phone.phoneNumber,
        reason: 'bad_session',
      });
      const neighbour = neighbourOf(ref);
      await sessions.claimStart(neighbour, ref.shard, 1, 5);
      await sessions.saveState(neighbour, 1, {
        state: 'disconnected',
        phoneNumber: null,
        reason: 'logged_out',
      });

      const next = worker();
      await next.adopt(ref.shard, 2);
      await connected(next.host, ref);
      await eventually('stored connected', async () => (await stored(ref)).state === 'connected');
      expect(await stored(ref)).toMatchObject({
        phoneNumber: phone.phoneNumber,
        reason: null,
        ownerToken: 2,
      });
      expect(network.linkedDevices(phone)).toEqual([device]);
      expect(await stored(neighbour)).toMatchObject({ state: 'disconnected', reason: 'logged_out' });
    }, 60_000);
  });

  describe('the retry archive (item 6)', () => {
    it('answers a retry receipt for the first of 1,500 messages sent', async () => {
      const ref = await newSession();
      const w = worker();
      await w.adopt(ref.shard, 1);
      await linked(w.host, ref);
      const contact = network.user('254733100001', 'Amina');
      const send = (n: number) =>
        w.host.execute({
          ...cmd(ref),
          v: 2,
          type: 'message.send',
          message: { kind: 'text', to: contact.phoneNumber, text: `Order ${n}` },
        } as SessionCommand) as Promise<{ key: { id: string } }>;

      const firstId = (await send(1)).key.id;
      const first = await eventually('the contact to receive the first', () =>
        network.receivedBy(contact).find((message) => message.id === firstId),
      );
      for (let n = 2; n <= 1_500; n += 25) {
        await Promise.all(Array.from({ length: Math.min(25, 1_501 - n) }, (_, i) => send(n + i)));
      }

      expect(network.requestRetry(contact, first)).toBe(true);
      const copies = await eventually('the first sent again', () => {
        const found = network
          .receivedBy(contact)
          .filter((message: ReceivedMessage) => message.id === firstId);
        return found.length >= 2 && found;
      });
      expect(copies[1]?.message.conversation ?? copies[1]?.message.extendedTextMessage?.text).toBe('Order 1');
    }, 240_000);
  });

  describe('PostgreSQL outages (item 4)', () => {
    // Baileys commits a decryption's key changes with 10 tries 3 s apart, then takes the message
    // for undecryptable: a longer outage lost it (issue 28: one of two messages never delivered).
    it('a message that arrives during a 35 s outage of the credentials database is delivered once it is back', async () => {
      const proxy = await TcpProxy.inFrontOf(db.url);
      cleanups.push(() => proxy.close());
      const proxied = createDataSource(proxy.rewrite(db.url), {
        poolSize: 4,
        applicationName: 'jumbe-faults-creds',
      });
      await proxied.initialize();
      cleanups.push(() => proxied.destroy());
      const ref = await newSession();
      const w = worker(emulator.url, { credentials: new NetworkCredentialStore(proxied) });
      await w.adopt(ref.shard, 1);
      const { phone } = await linked(w.host, ref);
      const contact = network.user('254733400001', 'Juma');
      const delivered = () =>
        w.publisher.events.map((event) => (event.payload as { message?: { id?: string } }).message?.id);

      const first = await network.sendMessage(contact, phone, { conversation: 'before the outage' });
      await eventually('the first delivered', () => delivered().includes(first));
      await proxy.cut();
      const second = await network.sendMessage(contact, phone, { conversation: 'during the outage' });
      // Past Baileys' ten commit tries (27 s), on the clock of this test's own waits.
      const until = Date.now() + 35_000;
      await eventually('the outage to last 35 s', () => Date.now() >= until, 40_000);
      expect(delivered()).not.toContain(second);
      await proxy.restore();

      await eventually('the second delivered', () => delivered().includes(second), 30_000);
    }, 150_000);

    // The inbound outbox's connection goes through a proxy that is cut: a message the contact
    // sends is receipted to WhatsApp, and storing it fails and is retried.
    it('a shard drop (its sessions closing) returns while PostgreSQL is down and a received message waits to be stored', async () => {
      const proxy = await TcpProxy.inFrontOf(db.url);
      cleanups.push(() => proxy.close());
      const proxied = createDataSource(proxy.rewrite(db.url), {
        poolSize: 2,
        applicationName: 'jumbe-faults-outbox',
      });
      await proxied.initialize();
      cleanups.push(() => proxied.destroy());
      const ref = await newSession();
      const w = worker(emulator.url, { inboundOutbox: new InboundOutboxRepository(proxied) });
      await w.adopt(ref.shard, 1);
      const { phone, device } = await linked(w.host, ref);
      const contact = network.user('254733200001', 'Baraka');

      await proxy.cut();
      await network.sendMessage(contact, phone, { conversation: 'sent during the outage' });
      await eventually('the message receipted to the server', () => device.unanswered.size === 0);

      let dropped = false;
      const dropping = w.host.dropShard(ref.shard).then(() => (dropped = true));
      await eventually('the shard dropped while PostgreSQL is still down', () => dropped, 40_000);
      await dropping;
      expect(proxy.isCut).toBe(true);
      expect(w.raw.openSessions).toBe(0);
    }, 90_000);
  });

  describe('outbound media (item 8)', () => {
    const MiB = 1024 * 1024;
    let server: Server;
    let mediaUrl: string;
    /** Requests for a file the server has received, and those it holds unanswered. */
    let arrivals: number;
    let onArrival: (response: ServerResponse) => void;

    beforeAll(async () => {
      const file = Buffer.alloc(MiB, 7);
      server = createServer((_request: IncomingMessage, response: ServerResponse) => {
        arrivals += 1;
        onArrival(response);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      mediaUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/invoice.pdf`;
      onArrival = (response) => response.end(file);
      // What a served file looks like; each test decides when it is served.
      serve = (response) => response.writeHead(200, { 'content-type': 'application/pdf' }).end(file);
    });
    beforeEach(() => {
      arrivals = 0;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
    let serve: (response: ServerResponse) => void;

    const mediaWorker = (bytesInFlight: number, budgetWaitMs = 30_000) =>
      worker(emulator.url, {
        allowPrivateNetworks: true,
        mediaMaxBytes: MiB,
        mediaBytesInFlight: bytesInFlight,
        mediaBudgetWaitMs: budgetWaitMs,
      });
    const sendFile = (host: SessionHost, ref: Ref, to: EmulatedUser, n: number) =>
      host.execute({
        ...cmd(ref),
        v: 2,
        type: 'message.send',
        message: { kind: 'media', to: to.phoneNumber, type: 'document', url: `${mediaUrl}?n=${n}` },
      } as SessionCommand);

    it('six concurrent 1 MiB sends on a 2 MiB budget: never more than two files held at once, and every one sent', async () => {
      const ref = await newSession();
      const w = mediaWorker(2 * MiB);
      await w.adopt(ref.shard, 1);
      await linked(w.host, ref);
      const contact = network.user('254733300001', 'Zawadi');
      let completed = 0;
      let mostHeld = 0;
      // A file is held from the request for it until its send has answered.
      onArrival = (response) => {
        mostHeld = Math.max(mostHeld, arrivals - completed);
        serve(response);
      };

      const sends = Array.from({ length: 6 }, (_, n) =>
        sendFile(w.host, ref, contact, n).then((sent) => {
          completed += 1;
          return sent as { key: { id: string } };
        }),
      );
      const ids = (await Promise.all(sends)).map((sent) => sent.key.id);

      expect(arrivals).toBe(6);
      expect(mostHeld).toBeLessThanOrEqual(2);
      await eventually('the contact to receive all six', () =>
        ids.every((id) => network.receivedBy(contact).some((message) => message.id === id)),
      );
    }, 120_000);

    it('a send that finds no room within its wait fails media_busy, sending nothing; the one holding the budget is sent', async () => {
      const ref = await newSession();
      const w = mediaWorker(MiB, 300);
      await w.adopt(ref.shard, 1);
      await linked(w.host, ref);
      const contact = network.user('254733300002', 'Neema');
      const held: ServerResponse[] = [];
      onArrival = (response) => held.push(response);

      const first = sendFile(w.host, ref, contact, 1);
      await eventually('the first download under way', () => held.length === 1);
      await expect(sendFile(w.host, ref, contact, 2)).rejects.toMatchObject({ code: 'media_busy' });
      expect(arrivals).toBe(1);

      serve(held[0]!);
      const { key } = (await first) as { key: { id: string } };
      await eventually('the contact to receive the first', () =>
        network.receivedBy(contact).some((message) => message.id === key.id),
      );
    }, 60_000);
  });
});
