import { initAuthCreds, proto } from '@whiskeysockets/baileys';
import pino from 'pino';
import { NetworkSendError } from '../network-send-error';
import type { NetworkSession } from '../network-session';
import { NotReadyError } from '../not-ready-error';
import type { SessionRef } from '../session-ref';
import { CREDS_KEY_ID, CREDS_KIND } from './postgres-auth-state';
import { EventRecorder } from './test-support/event-recorder';
import { FakeWhatsApp } from './test-support/fake-baileys';
import { MemoryCredentialStore } from './test-support/memory-credential-store';
import { MemorySentMessageStore } from './test-support/memory-sent-message-store';
import { ProcessInboundOutbox } from './inbound-outbox';
import { WhatsAppNetworkDriver } from './whatsapp-network-driver';
import type { WhatsAppNetworkOptions } from './whatsapp-settings';

const REF: SessionRef = { accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId: 'sales' };
const TOKEN = 7;
const PHONE = '254712345678';

function setup(overrides: Partial<WhatsAppNetworkOptions> = {}) {
  const network = new FakeWhatsApp();
  const store = new MemoryCredentialStore();
  const driver = new WhatsAppNetworkDriver({
    credentials: store,
    secretKey: 'test-secret-key-with-enough-characters',
    logger: pino({ level: 'silent' }),
    socketFactory: network.factory,
    fetchVersion: async () => null,
    loginTimeoutMs: 5_000,
    pairingCodeWaitMs: 500,
    reconnectBaseMs: 10,
    reconnectMaxMs: 80,
    refusalBackoffBaseMs: 10,
    refusalBackoffMaxMs: 80,
    connectSpacingMs: 0,
    redeliveryIntervalMs: 20,
    random: () => 0.5,
    ...overrides,
  });
  return { network, store, driver };
}

/** A session linked to PHONE and connected: QR scanned, restart, open. */
async function connectedSession(overrides: Partial<WhatsAppNetworkOptions> = {}) {
  const context = setup(overrides);
  const events = new EventRecorder();
  const session = await context.driver.open(REF, events, { linked: false, token: TOKEN });
  const first = await context.network.socket(1);
  first.showQr('2@qr-ref-1');
  await first.linkPhone(PHONE);
  const second = await context.network.socket(2);
  second.open();
  await events.untilEvent('connected');
  return { ...context, events, session, socket: second };
}

describe('WhatsAppNetworkDriver: login', () => {
  it('turns the QR Baileys emits into qr_ready, and a refresh replaces it', async () => {
    const { network, driver } = setup();
    const events = new EventRecorder();
    await driver.open(REF, events, { linked: false, token: TOKEN });
    const socket = await network.socket(1);
    socket.showQr('2@first-ref');
    socket.showQr('2@second-ref');
    expect(events.links).toEqual([
      { type: 'qr', qr: '2@first-ref' },
      { type: 'qr', qr: '2@second-ref' },
    ]);
  });

  it('chooses server options: no full history sync, not online, bounded caches, retries served', async () => {
    const { network, driver } = setup();
    await driver.open(REF, new EventRecorder(), { linked: false, token: TOKEN });
    const { config } = await network.socket(1);
    expect(config.syncFullHistory).toBe(false);
    expect(config.markOnlineOnConnect).toBe(false);
    const { HistorySyncType } = proto.HistorySync;
    expect(config.shouldSyncHistoryMessage?.({ syncType: HistorySyncType.FULL })).toBe(false);
    expect(config.shouldSyncHistoryMessage?.({ syncType: HistorySyncType.ON_DEMAND })).toBe(false);
    // The small initial syncs carry the LID mappings Baileys needs.
    expect(config.shouldSyncHistoryMessage?.({ syncType: HistorySyncType.INITIAL_BOOTSTRAP })).toBe(true);
    expect(config.getMessage).toEqual(expect.any(Function));
    for (const cache of [
      config.msgRetryCounterCache,
      config.userDevicesCache,
      config.placeholderResendCache,
    ]) {
      expect(cache?.constructor.name).toBe('BoundedCache');
    }
  });

  it('links a phone: scan, restart required, reconnect at once, connected with the number', async () => {
    const { events, network, store } = await connectedSession();
    expect(events.types()).toEqual(['qr', 'connecting', 'connected']);
    expect(events.links.at(-1)).toEqual({ type: 'connected', phoneNumber: PHONE });
    expect(network.sockets).toHaveLength(2);
    expect(store.has(REF, CREDS_KIND, CREDS_KEY_ID)).toBe(true);
  });

  it('caches the signal keys read on every message, never the one-time pre-keys', async () => {
    const { socket, store } = await connectedSession();
    const keys = socket.config.auth.keys;
    const pair = { public: Buffer.alloc(32, 1), private: Buffer.alloc(32, 2) };
    await keys.set({ 'pre-key': { '7': pair }, session: { 'contact.0': Buffer.from('record') } });
    // Gone from PostgreSQL behind the cache's back: only what the cache kept can still be read.
    store.items.clear();
    expect(await keys.get('session', ['contact.0'])).toEqual({ 'contact.0': Buffer.from('record') });
    expect(await keys.get('pre-key', ['7'])).toEqual({});
  });

  it('keeps the retry-counter cache across reconnects (one per session)', async () => {
    const { network } = await connectedSession();
    expect(network.sockets[1]?.config.msgRetryCounterCache).toBe(
      network.sockets[0]?.config.msgRetryCounterCache,
    );
  });

  it('ends in qr_timeout when every QR ref expired unscanned, and clears the credentials', async () => {
    const { network, store, driver } = setup();
    const events = new EventRecorder();
    await driver.open(REF, events, { linked: false, token: TOKEN });
    const socket = await network.socket(1);
    socket.showQr('2@ref');
    expect(store.count(REF)).toBeGreaterThan(0);
    await socket.closeWith(408, 'QR refs attempts ended');
    await events.untilEvent('disconnected:qr_timeout');
    expect(events.types()).toEqual(['qr', 'disconnected:qr_timeout']);
    expect(store.count(REF)).toBe(0);
    expect(network.sockets).toHaveLength(1);
  });

  it('ends in qr_timeout when the login outlives its own deadline', async () => {
    const { network, driver } = setup({ loginTimeoutMs: 60 });
    const events = new EventRecorder();
    await driver.open(REF, events, { linked: false, token: TOKEN });
    (await network.socket(1)).showQr('2@ref');
    await events.untilEvent('disconnected:qr_timeout');
    expect(network.latest.ended).toBe(true);
  });

  it('issues a pairing code once WhatsApp is reachable, and QR refreshes no longer replace it', async () => {
    const { network, driver } = setup();
    const events = new EventRecorder();
    const session = await driver.open(REF, events, { linked: false, token: TOKEN });
    const pending = session.requestPairingCode(PHONE);
    const socket = await network.socket(1);
    socket.showQr('2@ref-1');
    await expect(pending).resolves.toBe('K7PQ2XWD');
    socket.showQr('2@ref-2');
    expect(socket.pairingRequests).toEqual([PHONE]);
    expect(events.links).toEqual([
      { type: 'qr', qr: '2@ref-1' },
      { type: 'pairing_code', code: 'K7PQ2XWD' },
    ]);
    // The code is entered on the phone: same link path as a scan.
    await socket.linkPhone(PHONE);
    (await network.socket(2)).open();
    await events.untilEvent('connected');
  });

  it('resets the credentials of an abandoned pairing-code attempt, so the next start shows a QR', async () => {
    const { network, store, driver } = setup();
    const events = new EventRecorder();
    const session = await driver.open(REF, events, { linked: false, token: TOKEN });
    const socket = await network.socket(1);
    socket.showQr('2@ref');
    await session.requestPairingCode(PHONE);
    await socket.closeWith(408, 'QR refs attempts ended');
    await events.untilEvent('disconnected:qr_timeout');
    expect(store.count(REF)).toBe(0);

    const next = new EventRecorder();
    await driver.open(REF, next, { linked: false, token: TOKEN });
    const fresh = await network.socket(2);
    expect(fresh.config.auth.creds.me).toBeUndefined();
    fresh.showQr('2@new-ref');
    expect(next.types()).toEqual(['qr']);
  });

  it('refuses a pairing code when the session is not waiting for a login', async () => {
    const { session } = await connectedSession();
    await expect(session.requestPairingCode(PHONE)).rejects.toBeInstanceOf(NotReadyError);
    await expect(session.requestPairingCode('12')).rejects.toBeInstanceOf(RangeError);
  });

  it('answers a pairing-code request with network_error when WhatsApp cannot be reached', async () => {
    const { network, driver } = setup({ pairingCodeWaitMs: 50 });
    network.offline = true;
    const session = await driver.open(REF, new EventRecorder(), { linked: false, token: TOKEN });
    const error = await session.requestPairingCode(PHONE).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkSendError);
    expect((error as NetworkSendError).code).toBe('network_error');
    await session.close();
  });

  it('without internet a start stays starting while it retries, then ends with network_error', async () => {
    const { network, driver, store } = setup({ loginTimeoutMs: 150 });
    network.offline = true;
    const events = new EventRecorder();
    await driver.open(REF, events, { linked: false, token: TOKEN });
    await network.socket(3);
    expect(events.links).toEqual([]);
    await events.untilEvent('disconnected:network_error');
    expect(events.types()).toEqual(['disconnected:network_error']);
    expect(store.count(REF)).toBe(0);
    const sockets = network.sockets.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(network.sockets.length).toBe(sockets);
  });

  it('requires the shard token (credential writes are fenced)', async () => {
    const { driver } = setup();
    await expect(driver.open(REF, new EventRecorder(), { linked: false })).rejects.toThrow(/fencing token/);
  });
});

describe('WhatsAppNetworkDriver: reconnects per DisconnectReason', () => {
  it.each([
    [408, 'Connection was lost'],
    [428, 'Connection Terminated'],
    [503, 'Stream Errored (service unavailable)'],
    [500, 'Stream Errored (bad session)'],
    [undefined, 'getaddrinfo ENOTFOUND web.whatsapp.com'],
  ])('%s (%s): back to connecting, reconnects with backoff, connected again', async (code, reason) => {
    const { events, network, socket } = await connectedSession();
    const closedAt = Date.now();
    await socket.closeWith(code, reason);
    const next = await network.socket(3);
    // Backoff: the first ceiling is 10 ms and the wait is drawn from its upper half.
    expect(Date.now() - closedAt).toBeGreaterThanOrEqual(5);
    next.open();
    await events.until(
      () => events.types().filter((type) => type === 'connected').length === 2,
      'reconnected',
    );
    expect(events.types().slice(-2)).toEqual(['connecting', 'connected']);
  });

  it('restartRequired on a stable connection reconnects at once without a backoff', async () => {
    const { network, socket } = await connectedSession({
      reconnectBaseMs: 5_000,
      reconnectMaxMs: 5_000,
      stableConnectionMs: 0,
    });
    await socket.closeWith(515, 'Stream Errored (restart required)');
    await expect(network.socket(3, 500)).resolves.toBeDefined();
  });

  it('backs off exponentially up to the cap while the network stays down', async () => {
    const { network, socket } = await connectedSession({ reconnectBaseMs: 10, reconnectMaxMs: 40 });
    network.offline = true;
    const started = Date.now();
    await socket.closeWith(408, 'Connection was lost');
    await network.socket(7, 3_000);
    // Waits: 7.5, 15, 30, 30, 30 ms (ceilings 10, 20, 40, 40, 40 with jitter 0.5).
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('a linked session restored without internet keeps trying in connecting', async () => {
    const { network, store, driver } = setup();
    const events = new EventRecorder();
    await seedLinkedCreds(driver, network, store);
    network.offline = true;
    const restored = await driver.open(REF, events, { linked: true, token: TOKEN });
    await network.socket(network.sockets.length + 3);
    expect(events.types()).toEqual(['connecting']);
    await restored.close();
    expect(events.types()).toEqual(['connecting', 'disconnected:shutdown']);
  });

  it('loggedOut (401) ends logged_out and clears the credentials', async () => {
    const { events, network, socket, store } = await connectedSession();
    await socket.closeWith(401, 'Connection Failure');
    await events.untilEvent('disconnected:logged_out');
    expect(store.count(REF)).toBe(0);
    expect(network.sockets).toHaveLength(2);
  });

  it.each([
    [440, 'connection_replaced'],
    [403, 'forbidden'],
  ])('%s ends with %s and never fights for the connection', async (code, reason) => {
    const { events, network, socket, store } = await connectedSession();
    await socket.closeWith(code, 'Stream Errored (conflict)');
    await events.untilEvent(`disconnected:${reason}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(network.sockets).toHaveLength(2);
    expect(store.count(REF)).toBeGreaterThan(0);
  });

  it('a planned close emits shutdown, keeps the credentials and never reconnects', async () => {
    const { events, network, session, store, socket } = await connectedSession();
    await session.close();
    expect(events.types().at(-1)).toBe('disconnected:shutdown');
    expect(socket.ended).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(network.sockets).toHaveLength(2);
    expect(store.count(REF)).toBeGreaterThan(0);
    await session.close();
    expect(events.types().filter((type) => type.startsWith('disconnected'))).toHaveLength(1);
  });

  it('a session whose shard was taken over stops writing credentials and steps back', async () => {
    const { events, network, store, socket } = await connectedSession();
    store.takeOver(REF, TOKEN + 1);
    const writes = store.writes;
    socket.emit('creds.update', { nextPreKeyId: 99 });
    await events.untilEvent('disconnected:shutdown');
    expect(store.writes).toBe(writes);
    expect(network.sockets).toHaveLength(2);
  });

  it('staggers the sockets of many restored sessions', async () => {
    const { network, store, driver } = setup({ connectSpacingMs: 25 });
    const refs = [1, 2, 3, 4].map((n) => ({ ...REF, sessionId: `s${n}` }));
    for (const ref of refs) await store.write(ref, TOKEN, await credsFor(driver, ref));
    const started = Date.now();
    for (const ref of refs) await driver.open(ref, new EventRecorder(), { linked: true, token: TOKEN });
    await network.socket(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);
  });

  it('a linked session whose credentials are gone ends logged_out instead of showing a QR', async () => {
    const { network, driver } = setup();
    const events = new EventRecorder();
    await driver.open(REF, events, { linked: true, token: TOKEN });
    await events.untilEvent('disconnected:logged_out');
    expect(network.sockets).toHaveLength(0);
  });
});

describe('WhatsAppNetworkDriver: logout and duplicate numbers', () => {
  it('logout unlinks on the phone, clears the credentials and ends logged_out', async () => {
    const { events, session, socket, store } = await connectedSession();
    await session.logout();
    expect(socket.loggedOut).toBe(true);
    expect(store.count(REF)).toBe(0);
    expect(events.types().at(-1)).toBe('disconnected:logged_out');
    expect(events.types().filter((type) => type.startsWith('disconnected'))).toHaveLength(1);
    await session.logout();
  });

  it('logout of a session waiting for a QR just ends it', async () => {
    const { network, driver, store } = setup();
    const events = new EventRecorder();
    const session = await driver.open(REF, events, { linked: false, token: TOKEN });
    (await network.socket(1)).showQr('2@ref');
    await session.logout();
    expect(network.latest.loggedOut).toBe(false);
    expect(events.types()).toEqual(['qr', 'disconnected:logged_out']);
    expect(store.count(REF)).toBe(0);
  });

  it('refuses a number already connected elsewhere: on link the worker logs the new session out', async () => {
    // The worker's database refuses the second `connected` (unique number) and calls logout, as
    // LiveSession does; the driver must unlink the device and remove the new credentials.
    const { network, store, driver } = setup();
    const events = new EventRecorder();
    let session: NetworkSession | null = null;
    events.onEvent = (event) => {
      if (event.type === 'connected') void session?.logout();
    };
    session = await driver.open(REF, events, { linked: false, token: TOKEN });
    const first = await network.socket(1);
    first.showQr('2@ref');
    await first.linkPhone(PHONE);
    const second = await network.socket(2);
    second.open();
    await events.untilEvent('disconnected:logged_out');
    expect(second.loggedOut).toBe(true);
    expect(store.count(REF)).toBe(0);
    expect(network.sockets).toHaveLength(2);
  });
});

describe('WhatsAppNetworkDriver: sends', () => {
  it('refuses sends while not connected with session_not_connected', async () => {
    const { network, driver } = setup();
    const session = await driver.open(REF, new EventRecorder(), { linked: false, token: TOKEN });
    (await network.socket(1)).showQr('2@ref');
    const error = await session
      .send({ kind: 'text', to: `${PHONE}@s.whatsapp.net`, text: 'hi' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'session_not_connected' });
  });

  it('sends text and answers with Baileys’ key', async () => {
    const { session, socket } = await connectedSession();
    const key = await session.send({ kind: 'text', to: '255700000001@s.whatsapp.net', text: 'Habari' });
    const [sent] = socket.sent;
    expect(sent?.message.message?.extendedTextMessage?.text ?? sent?.message.message?.conversation).toBe(
      'Habari',
    );
    expect(key).toEqual({ remoteJid: '255700000001@s.whatsapp.net', fromMe: true, id: sent?.message.key.id });
  });

  it('reports the statuses of messages it sent, not of those sent from the phone', async () => {
    const { session, socket, events } = await connectedSession();
    const key = await session.send({ kind: 'text', to: '255700000001@s.whatsapp.net', text: 'Habari' });
    const receipt = (id: string, status: number) => ({
      key: { remoteJid: '255700000001@s.whatsapp.net', id, fromMe: true },
      update: { status, messageTimestamp: 1_767_225_600 },
    });
    socket.emit('messages.update', [receipt('FROM-THE-PHONE', 3), receipt(key.id, 3)]);
    socket.emit('message-receipt.update', [
      {
        key: { remoteJid: '255700000001@s.whatsapp.net', id: key.id, fromMe: true },
        receipt: { userJid: '255700000001@s.whatsapp.net', readTimestamp: 1_767_225_601 },
      },
    ]);
    await events.until(() => events.statuses.length === 2, 'two statuses');
    expect(events.statuses).toEqual([
      { messageId: key.id, to: key.remoteJid, status: 'delivered', at: new Date('2026-01-01T00:00:00Z') },
      { messageId: key.id, to: key.remoteJid, status: 'read', at: new Date('2026-01-01T00:00:01Z') },
    ]);
  });

  it('reports a status that arrives while Baileys is still sending (the server acks at once; found by the WhatsApp emulator)', async () => {
    // The server's ack and the contact's receipt come in before Baileys' sendMessage returns.
    const { session, events, archiveReads } = await sessionWithSlowArchive({ whileSending: [2, 3] });

    const key = await session.send({ kind: 'text', to: '255700000001@s.whatsapp.net', text: 'Haraka' });

    await events.until(() => events.statuses.length === 2, 'both statuses');
    expect(events.statuses.map((status) => [status.messageId, status.status])).toEqual([
      [key.id, 'server_ack'],
      [key.id, 'delivered'],
    ]);
    // Found once the send in flight was recorded: no database read for either (issue 32).
    expect(archiveReads).not.toContain(key.id);
  });

  it('reports one message’s statuses in the order they arrived, however long each takes to look up', async () => {
    // The ack's lookup answers late; the contact's receipt, arriving just after the send is
    // recorded, finds it at once. Reported out of order, the worker would drop server_ack as a
    // step already passed (seen on CI through the WhatsApp emulator).
    const { session, socket, events } = await sessionWithSlowArchive({ whileSending: [2] });

    const key = await session.send({ kind: 'text', to: '255700000001@s.whatsapp.net', text: 'Polepole' });
    socket.emit('messages.update', [
      { key: { ...key }, update: { status: 3, messageTimestamp: 1_767_225_601 } },
    ]);

    await events.until(() => events.statuses.length === 2, 'both statuses');
    expect(events.statuses.map((status) => status.status)).toEqual(['server_ack', 'delivered']);
  });

  it('serves a recipient’s retry request for a sent message through getMessage', async () => {
    const { session, socket } = await connectedSession();
    const key = await session.send({ kind: 'text', to: '255700000001@s.whatsapp.net', text: 'again?' });
    const message = await socket.config.getMessage?.({ remoteJid: key.remoteJid, id: key.id, fromMe: true });
    expect(message?.extendedTextMessage?.text ?? message?.conversation).toBe('again?');
  });

  it('serves a retry request after a restart or hand-over: sent messages are kept sealed in the store', async () => {
    const sentMessages = new MemorySentMessageStore();
    const first = await connectedSession({ sentMessages });
    const key = await first.session.send({
      kind: 'text',
      to: '255700000001@s.whatsapp.net',
      text: 'survives',
    });
    await first.session.close();
    const [sealed] = [...sentMessages.rows.values()];
    expect(sealed?.includes(Buffer.from('survives'))).toBe(false);

    // Another worker (a new driver, nothing in memory) over the same credentials and store.
    const { network, driver } = setup({ sentMessages, credentials: first.store });
    await driver.open(REF, new EventRecorder(), { linked: true, token: TOKEN });
    const socket = await network.socket(1);
    const message = await socket.config.getMessage?.({ remoteJid: key.remoteJid, id: key.id, fromMe: true });
    expect(message?.extendedTextMessage?.text ?? message?.conversation).toBe('survives');
    expect(await socket.config.getMessage?.({ remoteJid: key.remoteJid, id: 'unknown', fromMe: true })).toBe(
      undefined,
    );
  });

  it('maps a failing socket to network_error', async () => {
    const { session, socket } = await connectedSession();
    socket.failSends = new Error('Connection Closed');
    await expect(
      session.send({ kind: 'text', to: '255700000001@s.whatsapp.net', text: 'x' }),
    ).rejects.toMatchObject({
      code: 'network_error',
    });
  });
});

describe('WhatsAppNetworkDriver: inbound', () => {
  const textFrom = (id: string, text: string, fromMe = false) => ({
    key: { remoteJid: '255700000009@s.whatsapp.net', fromMe, id },
    message: { conversation: text },
    messageTimestamp: 1_767_225_600,
    pushName: 'Amina',
  });

  it('hands notify and append upserts to onInbound, skipping its own messages', async () => {
    const { events, socket } = await connectedSession();
    socket.receive([textFrom('A1', 'live')], 'notify');
    socket.receive([textFrom('A2', 'while offline'), textFrom('A3', 'mine', true)], 'append');
    await events.until(() => events.inbound.length === 2, 'two messages');
    expect(events.inbound.map((message) => [message.id, message.text])).toEqual([
      ['A1', 'live'],
      ['A2', 'while offline'],
    ]);
  });

  it('keeps a received message in the outbox across a worker crash: the next owner delivers it', async () => {
    const inboundOutbox = new ProcessInboundOutbox();
    const first = await connectedSession({ inboundOutbox });
    first.events.failInbound = 1_000; // the event stream is down
    first.socket.receive([textFrom('K1', 'acked by WhatsApp, then SIGKILL')]);
    await first.events.until(() => first.events.inboundAttempts > 0, 'a delivery attempt');
    // SIGKILL: the first driver is simply gone (no close); the outbox is what PostgreSQL keeps.
    const { network, driver } = setup({ inboundOutbox, credentials: first.store });
    const events = new EventRecorder();
    await driver.open(REF, events, { linked: true, token: TOKEN });
    await events.until(() => events.inbound.length === 1, 'the message on the next owner');
    expect(events.inbound[0]).toMatchObject({ id: 'K1', text: 'acked by WhatsApp, then SIGKILL' });
    expect(events.inbound[0]?.timestamp).toBeInstanceOf(Date);
    expect(await inboundOutbox.oldest(REF, 10)).toEqual([]);
    expect(network.sockets).toHaveLength(1);
  });

  it('drops nothing however long the event stream is away (no size bound, in order)', async () => {
    const { events, socket } = await connectedSession();
    events.failInbound = 5;
    for (let batch = 0; batch < 30; batch += 1) {
      socket.receive(Array.from({ length: 50 }, (_, i) => textFrom(`Q${batch * 50 + i}`, 'x')));
    }
    await events.until(() => events.inbound.length === 1_500, 'all 1,500 messages', 10_000);
    expect(events.inbound.map((message) => message.id)).toEqual(
      Array.from({ length: 1_500 }, (_, i) => `Q${i}`),
    );
  });

  it('never delivers a message twice, across reconnects too', async () => {
    const { events, network, socket } = await connectedSession();
    socket.receive([textFrom('B1', 'once')]);
    socket.receive([textFrom('B1', 'once')]);
    await events.until(() => events.inbound.length === 1, 'one message');
    await socket.closeWith(428, 'Connection Terminated');
    const next = await network.socket(3);
    next.open();
    next.receive([textFrom('B1', 'once')], 'append');
    next.receive([textFrom('B2', 'new')], 'append');
    await events.until(() => events.inbound.length === 2, 'the new message');
    expect(events.inbound.map((message) => message.id)).toEqual(['B1', 'B2']);
  });

  it('keeps a message whose recording failed and retries it, in order', async () => {
    const { events, socket } = await connectedSession();
    events.failInbound = 2;
    socket.receive([textFrom('C1', 'first'), textFrom('C2', 'second')]);
    await events.until(() => events.inbound.length === 2, 'redelivery');
    expect(events.inbound.map((message) => message.id)).toEqual(['C1', 'C2']);
    expect(events.inboundAttempts).toBe(4);
  });

  it('resolves a LID sender through Baileys’ LID mapping', async () => {
    const { events, socket } = await connectedSession();
    socket.lids.set('99887766554433@lid', '255711000222:0@s.whatsapp.net');
    socket.receive([
      { key: { remoteJid: '99887766554433@lid', fromMe: false, id: 'L1' }, message: { conversation: 'hi' } },
    ]);
    await events.until(() => events.inbound.length === 1, 'the LID message');
    expect(events.inbound[0]).toMatchObject({
      chat: '99887766554433@lid',
      senderPhoneJid: '255711000222@s.whatsapp.net',
    });
  });
});

describe('WhatsAppNetworkDriver: one socket per session, links never lost', () => {
  it('two concurrent opens of one session never hold two sockets: the later replaces the earlier', async () => {
    const { network, driver } = setup();
    const first = new EventRecorder();
    const second = new EventRecorder();
    const [a, b] = await Promise.all([
      driver.open(REF, first, { linked: false, token: TOKEN }),
      driver.open(REF, second, { linked: false, token: TOKEN }),
    ]);
    expect(a).not.toBe(b);
    await network.socket(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(network.sockets.filter((socket) => !socket.ended)).toHaveLength(1);
    expect(first.types()).toEqual(['disconnected:shutdown']);
    expect(driver.openSessions).toBe(1);
  });

  it('linking on the surviving socket is not undone by the replaced one', async () => {
    const { network, store, driver } = setup({ loginTimeoutMs: 100 });
    const first = new EventRecorder();
    const second = new EventRecorder();
    await Promise.all([
      driver.open(REF, first, { linked: false, token: TOKEN }),
      driver.open(REF, second, { linked: false, token: TOKEN }),
    ]);
    await network.socket(1);
    const socket = network.sockets.find((candidate) => !candidate.ended);
    if (!socket) throw new Error('no live socket');
    socket.showQr('2@ref');
    await socket.linkPhone(PHONE);
    network.latest.open();
    await second.untilEvent('connected');
    // Well past the first login's deadline: nothing may clear the new link's credentials.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(store.has(REF, CREDS_KIND, CREDS_KEY_ID)).toBe(true);
    expect(second.types()).toEqual(['qr', 'connecting', 'connected']);
  });

  it('a start over stored linked credentials resumes the link instead of showing a QR', async () => {
    const { network, store, driver } = setup();
    await seedLinkedCreds(driver, network, store);
    const events = new EventRecorder();
    await driver.open(REF, events, { linked: false, token: TOKEN });
    (await network.socket(1)).open();
    await events.untilEvent('connected');
    expect(events.types()).toEqual(['connecting', 'connected']);
    expect(store.has(REF, CREDS_KIND, CREDS_KEY_ID)).toBe(true);
  });

  it('after 440 the credentials stay and the next start resumes without a new scan', async () => {
    const { events, network, socket, store, driver } = await connectedSession();
    await socket.closeWith(440, 'Stream Errored (conflict)');
    await events.untilEvent('disconnected:connection_replaced');
    const again = new EventRecorder();
    await driver.open(REF, again, { linked: false, token: TOKEN });
    (await network.socket(3)).open();
    await again.untilEvent('connected');
    expect(again.links.at(-1)).toEqual({ type: 'connected', phoneNumber: PHONE });
    expect(store.has(REF, CREDS_KIND, CREDS_KEY_ID)).toBe(true);
  });

  it('never reconnects once the worker lost the shard: it steps back instead of kicking the new owner', async () => {
    const { network, driver } = setup();
    let owned = true;
    const events = new EventRecorder();
    await driver.open(REF, events, { linked: false, token: TOKEN, stillOwned: () => owned });
    const first = await network.socket(1);
    first.showQr('2@ref');
    await first.linkPhone(PHONE);
    (await network.socket(2)).open();
    await events.untilEvent('connected');
    owned = false;
    await network.latest.closeWith(428, 'Connection Closed');
    await events.untilEvent('disconnected:shutdown');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(network.sockets).toHaveLength(2);
  });
});

describe('WhatsAppNetworkDriver: smaller real-network behaviours', () => {
  it('never decrypts status broadcasts (shouldIgnoreJid), but reads every chat', async () => {
    const { network, driver } = setup();
    await driver.open(REF, new EventRecorder(), { linked: false, token: TOKEN });
    const { config } = await network.socket(1);
    expect(config.shouldIgnoreJid?.('status@broadcast')).toBe(true);
    expect(config.shouldIgnoreJid?.('255711111111@s.whatsapp.net')).toBe(false);
    expect(config.shouldIgnoreJid?.('120363000000000000@g.us')).toBe(false);
  });

  it('asks the server for a group once per change, not on every group send', async () => {
    const { socket } = await connectedSession();
    const group = { id: '120363000000000001@g.us', subject: 'Team', participants: [] } as never;
    socket.groups.set('120363000000000001@g.us', group);
    const cached = socket.config.cachedGroupMetadata;
    if (!cached) throw new Error('no cachedGroupMetadata');
    expect(await cached('120363000000000001@g.us')).toBe(group);
    expect(await cached('120363000000000001@g.us')).toBe(group);
    expect(socket.groupQueries).toBe(1);
    socket.emit('group-participants.update', {
      id: '120363000000000001@g.us',
      author: '',
      participants: [],
      action: 'add',
    });
    await cached('120363000000000001@g.us');
    expect(socket.groupQueries).toBe(2);
  });

  it('a connection drop after a pairing code was issued offers a new login instead of ending logged_out', async () => {
    const { network, driver } = setup();
    const events = new EventRecorder();
    const session = await driver.open(REF, events, { linked: false, token: TOKEN });
    const socket = await network.socket(1);
    socket.showQr('2@ref');
    await session.requestPairingCode(PHONE);
    await socket.closeWith(428, 'Connection Terminated');
    const next = await network.socket(2);
    // Over the old `me`, Baileys would log in as an unregistered device and be answered 401.
    expect(next.config.auth.creds.me).toBeUndefined();
    next.showQr('2@ref-2');
    expect(events.types()).toEqual(['qr', 'pairing_code', 'qr']);
  });
});

describe('WhatsAppNetworkDriver: client version', () => {
  it('announces the version WhatsApp serves, fetched once for all sessions', async () => {
    let fetches = 0;
    const { network, driver } = setup({
      fetchVersion: async () => {
        fetches += 1;
        return [2, 3000, 1111];
      },
    });
    await driver.open(REF, new EventRecorder(), { linked: false, token: TOKEN });
    await driver.open({ ...REF, sessionId: 'other' }, new EventRecorder(), { linked: false, token: TOKEN });
    await network.socket(2);
    expect(network.sockets.map((socket) => socket.config.version)).toEqual([
      [2, 3000, 1111],
      [2, 3000, 1111],
    ]);
    expect(fetches).toBe(1);
  });

  it('offline, sockets use the version pinned in Baileys', async () => {
    const { network, driver } = setup({ fetchVersion: async () => null });
    await driver.open(REF, new EventRecorder(), { linked: false, token: TOKEN });
    expect((await network.socket(1)).config.version).toBeUndefined();
  });

  it('JUMBE_WHATSAPP_VERSION pins the version and nothing is fetched', async () => {
    const { network, driver } = setup({
      version: '2.3000.4242',
      fetchVersion: async () => {
        throw new Error('must not fetch');
      },
    });
    await driver.open(REF, new EventRecorder(), { linked: false, token: TOKEN });
    expect((await network.socket(1)).config.version).toEqual([2, 3000, 4242]);
  });

  it('a 405 fetches the current version before the next socket', async () => {
    const versions: [number, number, number][] = [
      [2, 3000, 1],
      [2, 3000, 2],
    ];
    const { events, network, socket } = await connectedSession({
      fetchVersion: async () => versions.shift() ?? null,
    });
    expect(socket.config.version).toEqual([2, 3000, 1]);
    await socket.closeWith(405, 'Connection Failure');
    const next = await network.socket(3);
    expect(next.config.version).toEqual([2, 3000, 2]);
    next.open();
    await events.until(
      () => events.types().filter((type) => type === 'connected').length === 2,
      'reconnected',
    );
  });

  it('405 after 405 ends client_outdated after the bounded tries, keeping the credentials', async () => {
    const { events, network, socket, store } = await connectedSession({ maxRefusals: 3 });
    await socket.closeWith(405, 'Connection Failure');
    for (const count of [3, 4]) await (await network.socket(count)).closeWith(405, 'Connection Failure');
    await events.untilEvent('disconnected:client_outdated');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(network.sockets).toHaveLength(4);
    expect(store.has(REF, CREDS_KIND, CREDS_KEY_ID)).toBe(true);
  });
});

/**
 * A connected session whose sent-message archive answers 50 ms late, as PostgreSQL does under
 * load, and whose socket reports the `whileSending` statuses of each send before Baileys'
 * sendMessage returns (the server acks at once).
 */
async function sessionWithSlowArchive({ whileSending }: { whileSending: number[] }) {
  const sentMessages = new MemorySentMessageStore();
  const find = sentMessages.find.bind(sentMessages);
  const archiveReads: string[] = [];
  sentMessages.find = async (...args) => {
    archiveReads.push(args[1]);
    const found = await find(...args);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return found;
  };
  const connected = await connectedSession({ sentMessages });
  const { socket } = connected;
  const sendMessage = socket.sendMessage.bind(socket);
  socket.sendMessage = async (jid, content) => {
    const message = await sendMessage(jid, content);
    const key = { remoteJid: jid, id: message?.key.id, fromMe: true };
    whileSending.forEach((status, index) =>
      socket.emit('messages.update', [{ key, update: { status, messageTimestamp: 1_767_225_600 + index } }]),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    return message;
  };
  return { ...connected, archiveReads };
}

async function credsFor(driver: WhatsAppNetworkDriver, ref: SessionRef) {
  const creds = {
    ...initAuthCreds(),
    me: { id: `${PHONE}:3@s.whatsapp.net` },
    account: { details: Buffer.from('x') },
  };
  // The driver encrypts with its own key: seal through a throwaway session of that driver.
  const cipher = (driver as unknown as { cipher: import('@jumbe/domain').SecretBox }).cipher;
  const { BufferJSON } = await import('@whiskeysockets/baileys');
  const json = Buffer.from(JSON.stringify(creds, BufferJSON.replacer), 'utf8');
  return [
    {
      kind: CREDS_KIND,
      keyId: CREDS_KEY_ID,
      value: cipher.sealBytes(json, JSON.stringify([ref.accountId, ref.sessionId, CREDS_KIND, CREDS_KEY_ID])),
    },
  ];
}

async function seedLinkedCreds(
  driver: WhatsAppNetworkDriver,
  _network: FakeWhatsApp,
  store: MemoryCredentialStore,
) {
  await store.write(REF, TOKEN, await credsFor(driver, REF));
}
