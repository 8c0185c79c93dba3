import { ApiError, inboundEventId, type SessionCommand, streamEventSchema } from '@jumbe/contracts';
import type { SessionView } from '@jumbe/domain';
import { MemorySandboxStore } from '@jumbe/network';
import {
  AccountRepository,
  NetworkCredentialStore,
  openMigratedTestDatabase,
  PlanRepository,
  SessionRepository,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import { shardOf } from '@jumbe/domain';
import { SandboxNetworkDriver } from '@jumbe/network';
import { eventually as sharedEventually } from '@jumbe/testing';
import pino from 'pino';
import { InboundRelay } from './inbound-relay';
import { StatusRelay } from './status-relay';
import { DEFAULT_SESSION_HOST_OPTIONS, SessionHost, type SessionHostOptions } from './session-host';
import { sessionInUnusedShard, startTestWorker, type TestWorker } from './test-support/host-harness';
import { RecordingPublisher } from './test-support/recording-publisher';

type Ref = { accountId: string; sessionId: string };

const eventType = (event: { payload: unknown }) => (event.payload as { event: string }).event;

/** The shared wait, with this file's 3 s default. */
const eventually = (what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 3_000) =>
  sharedEventually(what, condition, timeoutMs);

describe('SessionHost on the sandbox network and PostgreSQL', () => {
  let db: MigratedTestDatabase;
  let sessions: SessionRepository;
  let planId: string;
  const usedShards = new Set<number>();
  const workers: TestWorker[] = [];

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    sessions = new SessionRepository(db.dataSource);
    planId = (
      await new PlanRepository(db.dataSource).create({ name: 'basic', monthlyApiHits: 1_000, maxSessions: 3 })
    ).id;
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.dropAll()));
  });
  afterAll(() => db.close());

  const worker = (store: MemorySandboxStore, options: Partial<SessionHostOptions> = {}) => {
    const started = startTestWorker(db.dataSource, store, options);
    workers.push(started);
    return started;
  };

  /** A new account and a session id of it in a shard no other test uses. */
  async function newSession(): Promise<Ref & { shard: number }> {
    const accountId = (await new AccountRepository(db.dataSource).create({ name: 'Acme', planId })).id;
    return { accountId, ...sessionInUnusedShard(accountId, usedShards) };
  }

  const cmd = (ref: Ref) => ({ v: 1 as const, accountId: ref.accountId, sessionId: ref.sessionId });
  const start = (ref: Ref): SessionCommand => ({ ...cmd(ref), type: 'session.start', maxSessions: 3 });
  const status = (ref: Ref): SessionCommand => ({ ...cmd(ref), type: 'session.status' });
  const scan = (ref: Ref, phoneNumber: string): SessionCommand => ({
    ...cmd(ref),
    type: 'sandbox.scan',
    phoneNumber,
  });
  const sendText = (ref: Ref, to: string, text: string): SessionCommand => ({
    ...cmd(ref),
    v: 2,
    type: 'message.send',
    message: { kind: 'text', to, text },
  });

  const stored = (ref: Ref) => sessions.find(ref);
  const stateOn = async (on: TestWorker, ref: Ref) =>
    ((await on.host.execute(status(ref))) as SessionView).state;

  /** A phone number no other test links (a connected row keeps its number taken across tests). */
  let numbers = 0;
  const newNumber = () => `2557000${String(++numbers).padStart(5, '0')}`;

  /** Starts the session on `on` and links `phoneNumber` to it by a sandbox scan. */
  async function connect(on: TestWorker, ref: Ref, phoneNumber: string) {
    await on.host.execute(start(ref));
    return on.host.execute(scan(ref, phoneNumber));
  }

  it("refuses a command for a session whose shard it does not own, as 'unavailable'", async () => {
    const ref = await newSession();
    const host = worker(new MemorySandboxStore()).host;

    const refused = host.execute(start(ref));
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ code: 'unavailable', headers: { 'Retry-After': '1' } });
    expect(await stored(ref)).toBeNull();
  });

  it('starts a session to qr_ready, showing a QR, and records the state', async () => {
    const ref = await newSession();
    const w = worker(new MemorySandboxStore());
    await w.adopt(ref.shard, 1);

    expect(await w.host.execute(start(ref))).toMatchObject({
      sessionId: ref.sessionId,
      state: 'qr_ready',
      connected: false,
      phoneNumber: null,
    });
    const qr = (await w.host.execute({ ...cmd(ref), type: 'session.qr' })) as { state: string; qr: string };
    expect(qr.state).toBe('qr_ready');
    expect(qr.qr).not.toBe('');
    expect(await stored(ref)).toMatchObject({ state: 'qr_ready', shard: ref.shard, ownerToken: 1 });
  });

  it('connects on a sandbox scan and records the number', async () => {
    const ref = await newSession();
    const w = worker(new MemorySandboxStore());
    await w.adopt(ref.shard, 1);

    expect(await connect(w, ref, '255700000101')).toMatchObject({
      state: 'connected',
      connected: true,
      phoneNumber: '255700000101',
    });
    expect(await stored(ref)).toMatchObject({
      state: 'connected',
      phoneNumber: '255700000101',
      reason: null,
    });
  });

  it('sends while connected: answers the key, and the network received the message', async () => {
    const ref = await newSession();
    const w = worker(new MemorySandboxStore());
    await w.adopt(ref.shard, 1);
    await connect(w, ref, '255700000102');

    const sent = (await w.host.execute(sendText(ref, '255711111111', 'hello there'))) as {
      key: { id: string; remoteJid: string; fromMe: boolean };
    };
    expect(sent.key).toEqual({
      id: expect.any(String),
      remoteJid: '255711111111@s.whatsapp.net',
      fromMe: true,
    });

    const outbox = await w.host.execute({ ...cmd(ref), type: 'sandbox.outbox', limit: 10 });
    expect(outbox).toEqual([
      expect.objectContaining({
        id: sent.key.id,
        to: '255711111111@s.whatsapp.net',
        type: 'text',
        content: { text: 'hello there' },
      }),
    ]);
  });

  it('sends a retried send id once: a retry (even while the first is under way) gets the first key, another id sends again', async () => {
    const ref = await newSession();
    const w = worker(new MemorySandboxStore());
    await w.adopt(ref.shard, 1);
    await connect(w, ref, newNumber());
    const send = (sendId: string) =>
      ({ ...sendText(ref, '255711111111', 'once only'), sendId }) as SessionCommand;

    const [first, concurrentRetry] = (await Promise.all([
      w.host.execute(send('send-a')),
      w.host.execute(send('send-a')),
    ])) as { key: { id: string } }[];
    const laterRetry = (await w.host.execute(send('send-a'))) as { key: { id: string } };
    const other = (await w.host.execute(send('send-b'))) as { key: { id: string } };

    expect(concurrentRetry!.key.id).toBe(first!.key.id);
    expect(laterRetry.key.id).toBe(first!.key.id);
    expect(other.key.id).not.toBe(first!.key.id);
    const outbox = (await w.host.execute({ ...cmd(ref), type: 'sandbox.outbox', limit: 10 })) as {
      id: string;
    }[];
    expect(outbox.map((entry) => entry.id).sort()).toEqual([first!.key.id, other.key.id].sort());
  });

  it('answers a retry of a send it made with its key even once the session is no longer connected', async () => {
    // The gateway's 504 left the first try's outcome unknown; by the retry the number had dropped.
    const ref = await newSession();
    const w = worker(new MemorySandboxStore());
    await w.adopt(ref.shard, 1);
    await connect(w, ref, newNumber());
    const send = {
      ...sendText(ref, '255711111111', 'sent before the drop'),
      sendId: 'send-a',
    } as SessionCommand;
    const first = (await w.host.execute(send)) as { key: { id: string } };
    await w.host.execute({ ...cmd(ref), type: 'sandbox.disconnect', reason: 'network' });
    await eventually('not connected', async () => {
      const status = (await w.host.execute({ ...cmd(ref), type: 'session.status' })) as { state: string };
      return status.state !== 'connected';
    });

    const retry = (await w.host.execute(send)) as { key: { id: string } };
    expect(retry.key.id).toBe(first.key.id);
    // A send it never made is refused as before: nothing was sent.
    await expect(
      w.host.execute({ ...sendText(ref, '255711111111', 'new'), sendId: 'send-b' } as SessionCommand),
    ).rejects.toMatchObject({ code: 'session_not_connected' });
  });

  it("a send id is per session: the same id from another account's session is another send", async () => {
    const w = worker(new MemorySandboxStore());
    const keys: string[] = [];
    for (const ref of [await newSession(), await newSession()]) {
      await w.adopt(ref.shard, 1);
      await connect(w, ref, newNumber());
      const sent = (await w.host.execute({
        ...sendText(ref, '255711111111', 'mine'),
        sendId: 'same-id',
      } as SessionCommand)) as { key: { id: string } };
      const outbox = (await w.host.execute({ ...cmd(ref), type: 'sandbox.outbox', limit: 10 })) as {
        id: string;
      }[];
      expect(outbox.map((entry) => entry.id)).toEqual([sent.key.id]);
      keys.push(sent.key.id);
    }
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('refuses to send while not connected, with session_not_connected and the state in its message', async () => {
    const ref = await newSession();
    const w = worker(new MemorySandboxStore());
    await w.adopt(ref.shard, 1);
    await w.host.execute(start(ref)); // qr_ready, not linked

    const refused = w.host.execute(sendText(ref, '255722222222', 'too early'));
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ code: 'session_not_connected' });
    await expect(
      w.host.execute(sendText({ ...ref, sessionId: 'never-started' }, '255722222222', 'x')),
    ).rejects.toMatchObject({ code: 'session_not_connected' });

    // Said in the message, which the gateway logs as the failed send (one place: MessageSender).
    await expect(refused).rejects.toThrow(/qr_ready/);
    expect(await w.host.execute({ ...cmd(ref), type: 'sandbox.outbox', limit: 10 })).toEqual([]);
  });

  it('logs out: the session ends disconnected/logged_out, unlinked, and sends fail', async () => {
    const ref = await newSession();
    const store = new MemorySandboxStore();
    const w = worker(store);
    await w.adopt(ref.shard, 1);
    await connect(w, ref, '255700000103');

    expect(await w.host.execute({ ...cmd(ref), type: 'session.logout' })).toMatchObject({
      state: 'disconnected',
      reason: 'logged_out',
      phoneNumber: null,
      connected: false,
    });
    expect(await stored(ref)).toMatchObject({
      state: 'disconnected',
      reason: 'logged_out',
      phoneNumber: null,
    });
    expect(await store.linkedNumber(ref)).toBeNull();
    await expect(w.host.execute(sendText(ref, '255711111111', 'gone'))).rejects.toMatchObject({
      code: 'session_not_connected',
    });
    // The number is free for another session.
    const other = await newSession();
    await w.adopt(other.shard, 1);
    expect(await connect(w, other, '255700000103')).toMatchObject({ state: 'connected' });
  });

  it('publishes a received message once, as message.received on the session subject', async () => {
    const ref = await newSession();
    const w = worker(new MemorySandboxStore());
    await w.adopt(ref.shard, 1);
    await connect(w, ref, '255700000104');

    const { id } = (await w.host.execute({
      ...cmd(ref),
      type: 'sandbox.inbound',
      contact: { from: '255733333333', text: 'hi from a contact' },
    })) as { id: string };

    const received = () => w.publisher.events.filter((e) => eventType(e) === 'message.received');
    await eventually('the event', () => received().length > 0);
    await new Promise((resolve) => setTimeout(resolve, 100)); // nothing more may follow
    expect(received()).toHaveLength(1);
    const [event] = received();
    expect(event).toMatchObject({
      eventId: inboundEventId(ref.accountId, ref.sessionId, id),
      subject: `jumbe.v1.events.${ref.shard}.${ref.accountId}.${ref.sessionId}`,
      shard: ref.shard,
      payload: {
        event: 'message.received',
        customerId: ref.accountId,
        sessionId: ref.sessionId,
        message: expect.objectContaining({ id, phoneNumber: '255733333333' }),
      },
    });
    expect(JSON.stringify(event?.payload)).toContain('hi from a contact');
  });

  it('replies quoting a received message of the chat; a quote it has no record of is message_not_found (404)', async () => {
    const ref = await newSession();
    const w = worker(new MemorySandboxStore());
    await w.adopt(ref.shard, 1);
    await connect(w, ref, '255700000120');
    const { id } = (await w.host.execute({
      ...cmd(ref),
      type: 'sandbox.inbound',
      contact: { from: '255733333334', text: 'price?' },
    })) as { id: string };
    const reply = (body: { to: string; text: string; quotedMessageId: string }): SessionCommand => ({
      ...cmd(ref),
      v: 2,
      type: 'message.send',
      message: { kind: 'text', ...body },
    });

    await w.host.execute(reply({ to: '255733333334', text: '500', quotedMessageId: id }));
    const [entry] = (await w.host.execute({ ...cmd(ref), type: 'sandbox.outbox', limit: 1 })) as {
      content: object;
    }[];
    expect(entry?.content).toEqual({ text: '500', quotedMessageId: id });

    const refused = w.host.execute(reply({ to: '255733333399', text: 'x', quotedMessageId: id }));
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ code: 'message_not_found', status: 404 });
  });

  it('publishes every state change as session.status on the session subject, in order, never a QR value', async () => {
    const ref = await newSession();
    const w = worker(new MemorySandboxStore());
    await w.adopt(ref.shard, 1);
    await w.host.execute(start(ref));
    const { qr } = (await w.host.execute({ ...cmd(ref), type: 'session.qr' })) as { qr: string };
    await w.host.execute(scan(ref, '255700000110'));
    const { id } = (await w.host.execute({
      ...cmd(ref),
      type: 'sandbox.inbound',
      contact: { from: '255733333334', text: 'between the changes' },
    })) as { id: string };
    await eventually('the message', () =>
      w.publisher.events.some((e) => eventType(e) === 'message.received'),
    );
    await w.host.execute({ ...cmd(ref), type: 'sandbox.disconnect', reason: 'logged_out' });
    await eventually('the end', () => w.publisher.events.length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 100)); // nothing more may follow

    expect(
      w.publisher.events.map((e) => [eventType(e), (e.payload as { session?: unknown }).session]),
    ).toEqual([
      ['session.status', { state: 'qr_ready', phoneNumber: null, reason: null }],
      ['session.status', { state: 'connected', phoneNumber: '255700000110', reason: null }],
      ['message.received', undefined],
      ['session.status', { state: 'disconnected', phoneNumber: null, reason: 'logged_out' }],
    ]);
    for (const event of w.publisher.events) {
      expect(event.subject).toBe(`jumbe.v1.events.${ref.shard}.${ref.accountId}.${ref.sessionId}`);
      expect(event.payload).toMatchObject({ customerId: ref.accountId, sessionId: ref.sessionId });
      expect(streamEventSchema.safeParse(event.payload).success).toBe(true);
    }
    expect((w.publisher.events[2]!.payload as { message: { id: string } }).message.id).toBe(id);
    expect(qr).toMatch(/^jumbe-sandbox:/);
    expect(JSON.stringify(w.publisher.events)).not.toContain(qr);
    // Each change has its own id, stable for that change: a retried publish is stored once.
    expect(new Set(w.publisher.events.map((e) => e.eventId)).size).toBe(4);
    expect(w.publisher.events[0]!.eventId).toMatch(
      new RegExp(`^${ref.accountId}:${ref.sessionId}:session.status:`),
    );
  });

  /** What a previous worker left: a connected session in PostgreSQL, a linked device on the network. */
  async function leftConnected(ref: Ref & { shard: number }, phone: string, store: MemorySandboxStore) {
    await sessions.claimStart(ref, ref.shard, 4, 3);
    expect(await sessions.saveState(ref, 4, { state: 'connected', phoneNumber: phone, reason: null })).toBe(
      'saved',
    );
    await store.setPendingLogin(ref, { kind: 'qr', qr: 'old' }, 60_000);
    await store.completeLogin(ref, phone);
    await store.goOffline(ref);
  }

  it('restores a stored, linked session as connected when it adopts the shard, writing and announcing nothing', async () => {
    const ref = await newSession();
    const store = new MemorySandboxStore();
    await leftConnected(ref, '255700000105', store);
    const before = await stored(ref);
    // A disconnected session of the same shard stays down.
    const gone: Ref = { accountId: ref.accountId, sessionId: `${ref.sessionId}-gone` };
    await sessions.claimStart(gone, ref.shard, 4, 3);
    await sessions.saveState(gone, 4, { state: 'disconnected', phoneNumber: null, reason: 'logged_out' });

    const w = worker(store);
    await w.adopt(ref.shard, 5);
    // Adopted means restored, and restored means reconnected.
    expect(await stateOn(w, ref)).toBe('connected');
    expect(await w.host.execute(status(ref))).toMatchObject({ connected: true, phoneNumber: '255700000105' });
    // Connected before, connected after: the take-over fenced the row, and that is all it wrote.
    expect(await stored(ref)).toMatchObject({
      state: 'connected',
      phoneNumber: '255700000105',
      ownerToken: 5,
      updatedAt: before!.updatedAt,
    });
    expect(w.publisher.events).toEqual([]);
    expect(await stored(gone)).toMatchObject({ state: 'disconnected', ownerToken: 4 });
    expect(await w.host.execute(sendText(ref, '255711111111', 'back'))).toMatchObject({
      key: { fromMe: true },
    });
  });

  it('records and announces connecting, then connected, when a restore takes longer than the quiet window', async () => {
    const ref = await newSession();
    const store = new MemorySandboxStore();
    const phone = newNumber();
    await leftConnected(ref, phone, store);
    // The network is slow to take the device back.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const goOnline = store.goOnline.bind(store);
    store.goOnline = async (session) => {
      await released;
      return goOnline(session);
    };

    const w = worker(store, { quietReconnectMs: 50, restoreWaitMs: 5_000 });
    const adopted = w.adopt(ref.shard, 5);
    await eventually('connecting recorded', async () => (await stored(ref))?.state === 'connecting');
    await eventually('connecting announced', () => w.publisher.events.length === 1);
    release();
    await adopted;
    await eventually('connected recorded', async () => (await stored(ref))?.state === 'connected');
    await eventually('connected announced', () => w.publisher.events.length === 2);
    expect(
      w.publisher.events.map((event) => (event.payload as { session: { state: string } }).session.state),
    ).toEqual(['connecting', 'connected']);
    expect(await stored(ref)).toMatchObject({ phoneNumber: phone, ownerToken: 5 });
  });

  describe('while adopting a shard', () => {
    /** Linked sessions of one shard, as a previous worker left them (connected in PostgreSQL). */
    async function linkedInOneShard(
      count: number,
    ): Promise<{ refs: Ref[]; shard: number; store: MemorySandboxStore }> {
      const first = await newSession();
      const refs: Ref[] = [first];
      for (let n = 0; refs.length < count; n++) {
        const sessionId = `${first.sessionId}-${n}`;
        if (shardOf(first.accountId, sessionId) === first.shard)
          refs.push({ accountId: first.accountId, sessionId });
      }
      const store = new MemorySandboxStore();
      for (const ref of refs) {
        const phone = newNumber();
        await sessions.claimStart(ref, first.shard, 4, 10);
        await sessions.saveState(ref, 4, { state: 'connected', phoneNumber: phone, reason: null });
        await store.setPendingLogin(ref, { kind: 'qr', qr: 'old' }, 60_000);
        await store.completeLogin(ref, phone);
        await store.goOffline(ref);
      }
      return { refs, shard: first.shard, store };
    }

    /** A sandbox driver whose connection for `held` opens only when `release` is called. */
    function heldBackDriver(store: MemorySandboxStore, held: Ref) {
      const driver = new SandboxNetworkDriver(store, { reconnectDelayMs: 20, redeliveryIntervalMs: 50 });
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const open = driver.open.bind(driver);
      driver.open = async (ref, events, options) => {
        if (ref.sessionId === held.sessionId) await released;
        return open(ref, events, options);
      };
      return { driver, release };
    }

    /** A host as the worker module builds one, on `driver`, with these restore options. */
    function hostOn(
      driver: SandboxNetworkDriver,
      options: Partial<SessionHostOptions>,
      store: typeof sessions = sessions,
    ): SessionHost {
      return new SessionHost(
        driver,
        {
          sessions: store,
          credentials: new NetworkCredentialStore(db.dataSource),
          inbound: new InboundRelay(new RecordingPublisher()),
          statuses: new StatusRelay(new RecordingPublisher()),
          logger: pino({ level: 'silent' }),
        },
        { ...DEFAULT_SESSION_HOST_OPTIONS, restoreConcurrency: 1, ...options },
      );
    }

    it('answers a session already restored at once and one still restoring with session_restoring, then serves it', async () => {
      const { refs, shard, store } = await linkedInOneShard(3);
      const [slow, ...others] = refs as [Ref, ...Ref[]];
      const { driver, release } = heldBackDriver(store, slow);
      const host = hostOn(driver, { restoreWaitMs: 300 });
      const adopted = host.adoptShard(shard, 5);
      try {
        // One restore at a time and the slow one never finishes: the others still get served,
        // each restored ahead of its turn for the command that asks for it.
        for (const ref of others) {
          const startedAt = Date.now();
          expect(await host.execute(status(ref))).toMatchObject({ sessionId: ref.sessionId });
          expect(Date.now() - startedAt).toBeLessThan(300);
          await eventually(
            'connected',
            async () => (await stateOn({ host } as TestWorker, ref)) === 'connected',
          );
          expect(await host.execute(sendText(ref, '255711111111', 'while others restore'))).toMatchObject({
            key: { fromMe: true },
          });
        }
        const refused = host.execute(sendText(slow, '255711111111', 'too early'));
        await expect(refused).rejects.toMatchObject({
          code: 'session_restoring',
          status: 503,
          headers: { 'Retry-After': '1' },
        });

        // Once its connection opens, the same command waits for it and succeeds.
        const waiting = host.execute(status(slow));
        release();
        expect(await waiting).toMatchObject({ sessionId: slow.sessionId });
        await adopted;
        await eventually(
          'connected',
          async () => (await stateOn({ host } as TestWorker, slow)) === 'connected',
        );
      } finally {
        release();
        await adopted.catch(() => undefined);
        await host.dropShard(shard);
      }
    });

    it('answers a send for a session stored as connected whose restore failed with session_restoring, not a 409', async () => {
      const { refs, shard, store } = await linkedInOneShard(1);
      const ref = refs[0]!;
      // The database went away just as the shard was adopted: the sessions could not be listed.
      const unlisted: typeof sessions = Object.create(sessions);
      unlisted.takeOverShard = async () => {
        throw new Error('the database is restarting');
      };
      const host = hostOn(
        new SandboxNetworkDriver(store, { reconnectDelayMs: 20, redeliveryIntervalMs: 50 }),
        { restoreWaitMs: 300 },
        unlisted,
      );
      await expect(host.adoptShard(shard, 5)).rejects.toThrow('restarting');
      await expect(host.execute(sendText(ref, '255711111111', 'hello'))).rejects.toMatchObject({
        code: 'session_restoring',
        headers: { 'Retry-After': '1' },
      });
      await host.dropShard(shard);
    });

    it('tries a failed restore again instead of ending the session: no scan, the stored state kept meanwhile', async () => {
      const { refs, shard, store } = await linkedInOneShard(1);
      const ref = refs[0]!;
      const before = await stored(ref);
      // The first open fails (the database's pool was exhausted while many sessions restored).
      const driver = new SandboxNetworkDriver(store, { reconnectDelayMs: 20, redeliveryIntervalMs: 50 });
      const open = driver.open.bind(driver);
      let failures = 1;
      driver.open = async (...args) => {
        if (failures-- > 0) throw new Error('timeout exceeded when trying to connect');
        return open(...args);
      };
      const host = hostOn(driver, { restoreWaitMs: 300, restoreRetryMs: 50 });
      await host.adoptShard(shard, 5);
      // Not ended: still stored as connected with its number, and a send hears it is coming back.
      expect(await stored(ref)).toMatchObject({ state: before!.state, phoneNumber: before!.phoneNumber });
      await expect(host.execute(sendText(ref, '255711111111', 'too early'))).rejects.toMatchObject({
        code: 'session_restoring',
      });
      await eventually('restored on the second try', async () =>
        host.execute(sendText(ref, '255711111111', 'back')).then(
          () => true,
          () => false,
        ),
      );
      await host.dropShard(shard);
    });

    it('restores every session of the shard, a bounded number at a time, and leaves them for the next owner when the shard is dropped', async () => {
      const { refs, shard, store } = await linkedInOneShard(4);
      const driver = new SandboxNetworkDriver(store, { reconnectDelayMs: 20, redeliveryIntervalMs: 50 });
      let open = 0;
      let mostOpen = 0;
      const openNow = driver.open.bind(driver);
      driver.open = async (ref, events, options) => {
        open += 1;
        mostOpen = Math.max(mostOpen, open);
        await new Promise((resolve) => setTimeout(resolve, 20));
        try {
          return await openNow(ref, events, options);
        } finally {
          open -= 1;
        }
      };
      const host = hostOn(driver, { restoreConcurrency: 2, restoreWaitMs: 1_000 });
      await host.adoptShard(shard, 6);
      expect(mostOpen).toBe(2);
      for (const ref of refs) {
        await eventually(
          'connected',
          async () => (await stateOn({ host } as TestWorker, ref)) === 'connected',
        );
      }
      await host.dropShard(shard);
      expect(host.ownsShard(shard)).toBe(false);
      // Left connected in PostgreSQL, for the next owner to restore.
      for (const ref of refs) expect(await stored(ref)).toMatchObject({ state: 'connected', ownerToken: 6 });
    });
  });

  // A Redis blip: the keeper gives the shard up locally before its lease can lapse, then takes it
  // back while the lease still names this worker, so under the same token. Regression: the closed
  // connection stayed open underneath the tracing wrapper, the restore replaced it, and the closed
  // session's `disconnected/connection_replaced` was recorded (same token: not fenced) over the
  // session now connected again.
  it('takes a dropped shard back under the same token: restored, and still connected in PostgreSQL', async () => {
    const ref = await newSession();
    const w = worker(new MemorySandboxStore());
    await w.adopt(ref.shard, 1);
    await connect(w, ref, '255700000109');

    await w.host.dropShard(ref.shard);
    await w.adopt(ref.shard, 1);

    expect(await stateOn(w, ref)).toBe('connected');
    await new Promise((resolve) => setTimeout(resolve, 100)); // any late write would land by now
    expect(await stored(ref)).toMatchObject({
      state: 'connected',
      phoneNumber: '255700000109',
      reason: null,
    });
    // Nothing announced either: linked, then connected, as before the blip.
    const announced = w.publisher.events
      .filter((e) => eventType(e) === 'session.status')
      .map((e) => (e.payload as { session: { state: string } }).session.state);
    expect(announced).toEqual(['qr_ready', 'connected']);
    expect(await w.host.execute(sendText(ref, '255711111111', 'still here'))).toMatchObject({
      key: { fromMe: true },
    });
  });

  it('on dropShard closes sessions but leaves them connected in PostgreSQL for the next worker', async () => {
    const ref = await newSession();
    const store = new MemorySandboxStore();
    const first = worker(store);
    await first.adopt(ref.shard, 1);
    await connect(first, ref, '255700000106');

    await first.host.dropShard(ref.shard);
    expect(first.host.ownsShard(ref.shard)).toBe(false);
    expect(await stored(ref)).toMatchObject({
      state: 'connected',
      phoneNumber: '255700000106',
      ownerToken: 1,
    });
    await expect(first.host.execute(sendText(ref, '255711111111', 'x'))).rejects.toMatchObject({
      code: 'session_not_connected',
    });
    await expect(first.host.execute(start(ref))).rejects.toMatchObject({ code: 'unavailable' });

    const second = worker(store);
    await second.adopt(ref.shard, 2);
    await eventually('connected again', async () => (await stateOn(second, ref)) === 'connected');
    await eventually('recorded by the new owner', async () => (await stored(ref))?.ownerToken === 2);
    expect(await stored(ref)).toMatchObject({ state: 'connected', phoneNumber: '255700000106' });
    expect(await second.host.execute(sendText(ref, '255711111111', 'still here'))).toMatchObject({
      key: { fromMe: true },
    });
  });

  describe('a worker that lost the shard without noticing (its lease passed to another)', () => {
    async function takenOver() {
      const ref = await newSession();
      const store = new MemorySandboxStore();
      const stale = worker(store);
      await stale.adopt(ref.shard, 1);
      const phoneNumber = newNumber();
      await connect(stale, ref, phoneNumber);
      // The new owner adopts with a newer token while the stale one still holds the session.
      const owner = worker(store);
      await owner.adopt(ref.shard, 2);
      await eventually('the new owner connected', async () => {
        const record = await stored(ref);
        return record?.state === 'connected' && record.ownerToken === 2;
      });
      return { ref, stale, owner, phoneNumber };
    }

    it('cannot overwrite the stored state (a network drop it sees is fenced)', async () => {
      const { ref, stale, owner, phoneNumber } = await takenOver();

      await stale.host.execute({ ...cmd(ref), type: 'sandbox.disconnect', reason: 'network' });
      expect(await stored(ref)).toMatchObject({ state: 'connected', phoneNumber, ownerToken: 2 });
      // The stale worker stepped back: nothing of it is live any more.
      await expect(
        stale.host.execute({ ...cmd(ref), type: 'sandbox.disconnect', reason: 'network' }),
      ).rejects.toMatchObject({ code: 'session_not_connected' });
      expect(await owner.host.execute(status(ref))).toMatchObject({ state: 'connected' });
    });

    it('cannot start the session again over the new owner', async () => {
      const { ref, stale } = await takenOver();
      await stale.host.execute({ ...cmd(ref), type: 'sandbox.disconnect', reason: 'network' });

      await expect(stale.host.execute(start(ref))).rejects.toMatchObject({ code: 'unavailable' });
      expect(await stored(ref)).toMatchObject({ state: 'connected', ownerToken: 2 });
    });

    it("cannot log the session out, nor delete the new owner's stored credentials", async () => {
      // Regression: a worker that lost the shard must not log the session out or delete the new
      // owner's credentials (both writes are fenced by the shard's token).
      const { ref, stale } = await takenOver();
      const credentials = new NetworkCredentialStore(db.dataSource);
      expect(
        await credentials.write(ref, 2, [{ kind: 'creds', keyId: 'main', value: Buffer.from('keys') }]),
      ).toBe('saved');
      await stale.host.execute({ ...cmd(ref), type: 'sandbox.disconnect', reason: 'network' });

      await stale.host.execute({ ...cmd(ref), type: 'session.logout' }).catch(() => undefined);
      expect(await stored(ref)).toMatchObject({ state: 'connected', ownerToken: 2 });
      expect(await credentials.count(ref)).toBe(1);
    });
  });

  it("refuses a start beyond the plan's session cap, but not a restart of an active session", async () => {
    const first = await newSession();
    const w = worker(new MemorySandboxStore());
    const refs = [
      first,
      ...[1, 2, 3].map(() => ({ ...first, ...sessionInUnusedShard(first.accountId, usedShards) })),
    ];
    for (const ref of refs) await w.adopt(ref.shard, 1);

    for (const ref of refs.slice(0, 3)) await w.host.execute(start(ref));
    await expect(w.host.execute(start(refs[3]!))).rejects.toMatchObject({ code: 'instance_limit_reached' });
    expect(await stored(refs[3]!)).toBeNull();
    expect(await sessions.countActive(first.accountId)).toBe(3);
    expect(await w.host.execute(start(refs[0]!))).toMatchObject({ state: 'qr_ready' });
  });
});
