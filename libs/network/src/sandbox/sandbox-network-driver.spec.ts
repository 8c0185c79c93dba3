import { randomInt } from 'node:crypto';
import { inboundMessageEvent } from '@jumbe/contracts';
import { NetworkSendError } from '../network-send-error';
import type { NetworkSession } from '../network-session';
import { NotReadyError } from '../not-ready-error';
import { NumberInUseError } from '../number-in-use-error';
import type { SessionRef } from '../session-ref';
import { MemoryCredentialStore } from '../whatsapp/test-support/memory-credential-store';
import { MemorySandboxStore } from './memory-sandbox-store';
import { SandboxNetworkDriver } from './sandbox-network-driver';
import type { SandboxNetworkOptions } from './sandbox-network-options';
import type { SandboxStore } from './sandbox-store';
import { memoryStores, redisStores, type SandboxStoreKind } from './test-support/sandbox-store-fixtures';
import { delay, eventually, SessionRecorder } from './test-support/session-recorder';

// Every behaviour holds alike for one process (memory) and for a distributed deployment (Redis).
const kinds: SandboxStoreKind[] = [memoryStores(), redisStores()];

/** A number nobody else in this run uses, so tests sharing a store never collide on the registry. */
function freshNumber(): string {
  return `2547${String(randomInt(10_000_000, 99_999_999))}`;
}

function freshRef(accountId = `acc_${randomInt(1e9)}`, sessionId = 'default'): SessionRef {
  return { accountId, sessionId };
}

describe.each(kinds)('SandboxNetworkDriver over $name', (kind) => {
  let store: SandboxStore;
  let otherWorkerStore: SandboxStore;
  const sessions: NetworkSession[] = [];

  beforeEach(async () => {
    ({ first: store, second: otherWorkerStore } = await kind.pair());
  });

  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((session) => session.close()));
  });

  afterAll(() => kind.cleanUp());

  function driver(options: SandboxNetworkOptions = {}, onStore: SandboxStore = store): SandboxNetworkDriver {
    return new SandboxNetworkDriver(onStore, { redeliveryIntervalMs: 50, ...options });
  }

  async function open(
    on: SandboxNetworkDriver,
    ref: SessionRef,
    linked: boolean,
  ): Promise<{ session: NetworkSession; events: SessionRecorder }> {
    const events = new SessionRecorder();
    const session = await on.open(ref, events, { linked });
    sessions.push(session);
    return { session, events };
  }

  /** A session linked by QR scan, as after `POST /session/start` and `POST /sandbox/scan`. */
  async function connected(on: SandboxNetworkDriver, ref = freshRef(), phoneNumber = freshNumber()) {
    const opened = await open(on, ref, false);
    await opened.events.waitForLink('qr');
    await on.control().scan(ref, phoneNumber);
    return { ...opened, ref, phoneNumber };
  }

  describe('QR login', () => {
    it('offers a QR, then connects with the number of the phone that scanned it', async () => {
      const network = driver();
      const ref = freshRef();
      const { events } = await open(network, ref, false);
      expect(events.links).toEqual([]); // events start after open has returned

      const qr = await events.waitForLink('qr');
      expect(qr.qr).toMatch(/^jumbe-sandbox:\/\/link\?ref=[A-Za-z0-9_-]+$/);
      expect(await store.pendingLogin(ref)).toEqual({ kind: 'qr', qr: qr.qr });

      const phoneNumber = freshNumber();
      await network.control().scan(ref, phoneNumber);
      expect(events.links).toEqual([qr, { type: 'connected', phoneNumber }]);
      expect(await store.pendingLogin(ref)).toBeNull();
      expect(await store.linkedNumber(ref)).toBe(phoneNumber);
    });

    it('gives every login attempt its own QR value', async () => {
      const network = driver();
      const first = await open(network, freshRef(), false);
      const second = await open(network, freshRef(), false);
      const [a, b] = await Promise.all([first.events.waitForLink('qr'), second.events.waitForLink('qr')]);
      expect(a.qr).not.toBe(b.qr);
    });

    it('ends with qr_timeout when nobody scans in time, and cannot be scanned after', async () => {
      const network = driver({ qrTimeoutMs: 100 });
      const ref = freshRef();
      const { events } = await open(network, ref, false);
      await events.waitForLink('qr');
      expect(await events.waitForLink('disconnected')).toEqual({
        type: 'disconnected',
        reason: 'qr_timeout',
      });
      expect(events.linkTypes()).toEqual(['qr', 'disconnected']);
      await expect(network.control().scan(ref, freshNumber())).rejects.toBeInstanceOf(NotReadyError);
      expect(await store.pendingLogin(ref)).toBeNull();
    });
  });

  describe('pairing code login', () => {
    it('replaces the QR with an XXXX-XXXX code, then connects when the code is entered', async () => {
      const network = driver();
      const ref = freshRef();
      const phoneNumber = freshNumber();
      const { session, events } = await open(network, ref, false);

      const code = await session.requestPairingCode(phoneNumber);
      expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
      await delay(20);
      // Asked for before the first QR went out: the QR is never shown, so the state stays pairing_code_ready.
      expect(events.links).toEqual([{ type: 'pairing_code', code }]);
      expect(await store.pendingLogin(ref)).toEqual({ kind: 'pairing_code', code, phoneNumber });

      await network.control().scan(ref, phoneNumber);
      expect(events.last()).toEqual({ type: 'connected', phoneNumber });
    });

    it('can follow a QR that was already shown', async () => {
      const network = driver();
      const { session, events } = await open(network, freshRef(), false);
      await events.waitForLink('qr');
      const code = await session.requestPairingCode(freshNumber());
      expect(events.links.map((event) => event.type)).toEqual(['qr', 'pairing_code']);
      expect(events.last()).toEqual({ type: 'pairing_code', code });
    });

    it('is refused once the session is linked', async () => {
      const { session } = await connected(driver());
      await expect(session.requestPairingCode(freshNumber())).rejects.toBeInstanceOf(NotReadyError);
    });

    it('times out like a QR', async () => {
      const network = driver({ qrTimeoutMs: 100 });
      const { session, events } = await open(network, freshRef(), false);
      await session.requestPairingCode(freshNumber());
      expect(await events.waitForLink('disconnected')).toEqual({
        type: 'disconnected',
        reason: 'qr_timeout',
      });
    });
  });

  describe('scan when the session is not waiting for one', () => {
    it('is refused for a session nobody opened', async () => {
      const error = await driver()
        .control()
        .scan(freshRef(), freshNumber())
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotReadyError);
      expect(error).toMatchObject({ code: 'session_not_ready' });
    });

    it('is refused for a session that is already connected', async () => {
      const network = driver();
      const { ref } = await connected(network);
      await expect(network.control().scan(ref, freshNumber())).rejects.toBeInstanceOf(NotReadyError);
    });

    it('is refused for a session reconnecting from credentials', async () => {
      const network = driver();
      const ref = freshRef();
      await open(network, ref, true);
      await expect(network.control().scan(ref, freshNumber())).rejects.toBeInstanceOf(NotReadyError);
    });
  });

  describe('one number, one connected session', () => {
    it('refuses a number connected to a session of another account', async () => {
      const network = driver();
      const phoneNumber = freshNumber();
      await connected(network, freshRef('acc_one', `s${randomInt(1e9)}`), phoneNumber);

      const ref = freshRef('acc_two', 'default');
      const { events } = await open(network, ref, false);
      await events.waitForLink('qr');
      const error = await network
        .control()
        .scan(ref, phoneNumber)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NumberInUseError);
      expect(error).toMatchObject({ code: 'number_in_use', phoneNumber });

      // Still waiting: another phone can link it.
      const other = freshNumber();
      await network.control().scan(ref, other);
      expect(events.last()).toEqual({ type: 'connected', phoneNumber: other });
    });

    it('refuses a number connected to another session of the same account', async () => {
      const network = driver();
      const phoneNumber = freshNumber();
      const accountId = `acc_${randomInt(1e9)}`;
      await connected(network, { accountId, sessionId: 'sales' }, phoneNumber);
      const ref = { accountId, sessionId: 'support' };
      await (await open(network, ref, false)).events.waitForLink('qr');
      await expect(network.control().scan(ref, phoneNumber)).rejects.toBeInstanceOf(NumberInUseError);
    });

    it('lets a number move on from a session that is not connected; that session then reads as logged out', async () => {
      const network = driver();
      const phoneNumber = freshNumber();
      const first = await connected(network, freshRef(), phoneNumber);
      await first.session.close();

      const ref = freshRef();
      await (await open(network, ref, false)).events.waitForLink('qr');
      await network.control().scan(ref, phoneNumber);

      const reopened = await open(network, first.ref, true);
      expect(await reopened.events.waitForLink('disconnected')).toEqual({
        type: 'disconnected',
        reason: 'logged_out',
      });
    });
  });

  describe('sends', () => {
    it('reach the outbox, newest first, under WhatsApp-like ids', async () => {
      const network = driver();
      const { session, ref } = await connected(network);
      const to = '254700000001@s.whatsapp.net';

      const text = await session.send({ kind: 'text', to, text: 'Habari' });
      const media = await session.send({
        kind: 'media',
        to,
        url: 'https://example.com/menu.pdf',
        type: 'document',
        fileName: 'menu.pdf',
        caption: undefined,
      });
      const actions = [{ type: 'reply' as const, id: 'yes', label: 'Yes' }];
      const interactive = await session.send({
        kind: 'interactive',
        to: '120363000000000001@g.us',
        text: 'Confirm?',
        actions,
      });

      for (const key of [text, media, interactive]) expect(key.id).toMatch(/^3EB0[0-9A-F]{16}$/);
      expect(text).toEqual({ remoteJid: to, fromMe: true, id: text.id });
      expect(new Set([text.id, media.id, interactive.id]).size).toBe(3);

      const outbox = await network.control().outbox(ref, 10);
      expect(outbox.map(({ createdAt: _createdAt, ...entry }) => entry)).toEqual([
        {
          id: interactive.id,
          to: '120363000000000001@g.us',
          type: 'interactive',
          content: { text: 'Confirm?', actions },
        },
        {
          id: media.id,
          to,
          type: 'media',
          content: { url: 'https://example.com/menu.pdf', type: 'document', fileName: 'menu.pdf' },
        },
        { id: text.id, to, type: 'text', content: { text: 'Habari' } },
      ]);
      for (const entry of outbox) expect(new Date(entry.createdAt).toISOString()).toBe(entry.createdAt);
      expect(await network.control().outbox(ref, 1)).toHaveLength(1);
    });

    it('report server_ack at once, and what the control marks for a message the session sent', async () => {
      const network = driver();
      const { session, ref, events } = await connected(network);
      const to = '254700000001@s.whatsapp.net';
      const sent = await session.send({ kind: 'text', to, text: 'Habari' });
      expect(events.statuses).toEqual([
        { messageId: sent.id, to, status: 'server_ack', at: expect.any(Date) },
      ]);

      expect(await network.control().markStatus(ref, sent.id, 'read')).toEqual({
        messageId: sent.id,
        to,
        status: 'read',
      });
      expect(events.statuses[1]).toEqual({ messageId: sent.id, to, status: 'read', at: expect.any(Date) });
      // Another session's message, or none at all, is not this session's to mark.
      expect(await network.control().markStatus(ref, '3EB0FFFFFFFFFFFFFFFF', 'read')).toBeNull();
      const other = await connected(network);
      expect(await network.control().markStatus(other.ref, sent.id, 'delivered')).toBeNull();
      expect(events.statuses).toHaveLength(2);
      expect(other.events.statuses).toEqual([]);
    });

    it('report no message status for read receipts and presence: they send no message (issue 31)', async () => {
      const network = driver();
      const { session, ref, events } = await connected(network);
      const chat = '254700000001@s.whatsapp.net';
      await session.sendPresence(chat, 'typing');
      await session.markRead(chat, ['3EB0AAAAAAAAAAAAAAAA']);
      await session.sendPresence(chat, 'paused');

      expect((await network.control().outbox(ref, 10)).map((entry) => entry.type)).toEqual([
        'presence',
        'read',
        'presence',
      ]);
      expect(events.statuses).toEqual([]);
      // Only a message the session sent can be marked delivered or read later.
      const [presence] = await network.control().outbox(ref, 1);
      expect(await network.control().markStatus(ref, presence?.id ?? '', 'delivered')).toBeNull();
      expect(events.statuses).toEqual([]);
    });

    it('quote a message of the chat the session received or sent, and refuse any other (message_not_found)', async () => {
      const network = driver();
      const { session, ref, events } = await connected(network);
      const contact = '254700000001@s.whatsapp.net';
      const received = await network.control().inbound(ref, { from: '254700000001', text: 'Bei gani?' });
      const viaLid = await network.control().inbound(ref, { from: '254700000002', lid: true, text: 'lid' });
      await eventually('both messages delivered', () => events.inbound.length === 2);

      const reply = await session.send({
        kind: 'text',
        to: contact,
        text: '500',
        quotedMessageId: received.id,
      });
      const again = await session.send({
        kind: 'location',
        to: contact,
        latitude: 1,
        longitude: 2,
        quotedMessageId: reply.id,
      });
      // The event told the customer to answer a LID sender at their number: the quote is found there.
      await session.send({
        kind: 'text',
        to: '254700000002@s.whatsapp.net',
        text: 'ok',
        quotedMessageId: viaLid.id,
      });
      const outbox = await network.control().outbox(ref, 3);
      expect(outbox.map((entry) => entry.content['quotedMessageId'])).toEqual([
        viaLid.id,
        reply.id,
        received.id,
      ]);
      expect(outbox[2]?.content).toEqual({ text: '500', quotedMessageId: received.id });

      const other = await connected(network);
      for (const [on, to, quotedMessageId] of [
        [session, contact, '3EB0FFFFFFFFFFFFFFFF'],
        [session, '254700000009@s.whatsapp.net', received.id],
        [session, '254700000009@s.whatsapp.net', reply.id],
        [other.session, contact, received.id],
        [other.session, contact, again.id],
      ] as const) {
        await expect(on.send({ kind: 'text', to, text: 'x', quotedMessageId })).rejects.toMatchObject({
          code: 'message_not_found',
        });
      }
      expect(await network.control().outbox(ref, 10)).toHaveLength(3);
    });

    it('fail with session_not_connected while the session waits for a login', async () => {
      const network = driver();
      const { session, events } = await open(network, freshRef(), false);
      await events.waitForLink('qr');
      const error = await session
        .send({ kind: 'text', to: '254700000001@s.whatsapp.net', text: 'hi' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkSendError);
      expect(error).toMatchObject({ code: 'session_not_connected' });
    });

    it('fail with session_not_connected after the connection closed', async () => {
      const { session } = await connected(driver());
      await session.close();
      await expect(
        session.send({
          kind: 'media',
          to: '254700000001@s.whatsapp.net',
          url: 'https://x.test/a.png',
          type: 'image',
        }),
      ).rejects.toMatchObject({ code: 'session_not_connected' });
    });
  });

  describe('inbound messages', () => {
    const contact = '254711000111';
    const contactJid = `${contact}@s.whatsapp.net`;
    const group = '120363025246125486@g.us';

    async function receive(input: Parameters<ReturnType<SandboxNetworkDriver['control']>['inbound']>[1]) {
      const network = driver();
      const { ref, events } = await connected(network);
      const { id } = await network.control().inbound(ref, input);
      const [message] = await events.waitForInbound(1);
      if (!message) throw new Error('no message delivered');
      expect(message.id).toBe(id);
      return message;
    }

    it('delivers a direct text message', async () => {
      const before = Date.now();
      const message = await receive({ from: contact, pushName: 'Amina', text: 'Habari' });
      expect(message).toEqual({
        id: expect.stringMatching(/^3A[0-9A-F]{18}$/),
        chat: contactJid,
        participant: null,
        senderPhoneJid: null,
        fromMe: false,
        pushName: 'Amina',
        type: 'conversation',
        text: 'Habari',
        interaction: null,
        media: null,
        timestamp: expect.any(Date),
      });
      expect(message.timestamp.getTime()).toBeGreaterThan(before - 1_000);
      expect(message.timestamp.getTime() % 1_000).toBe(0);
    });

    it('delivers a direct message under a LID that resolves to the sender', async () => {
      const message = await receive({ from: contact, text: 'hi', lid: true });
      expect(message.chat).toMatch(/^[0-9]{15}@lid$/);
      expect(message.participant).toBeNull();
      expect(message.senderPhoneJid).toBe(contactJid);
      // The same contact always has the same LID.
      expect((await receive({ from: contact, text: 'again', lid: true })).chat).toBe(message.chat);
      // And the event built from it tells the receiver to reply to the phone JID.
      expect(inboundMessageEvent('acc', 'default', message, new Date())).toMatchObject({
        event: 'message.received',
        message: {
          from: contactJid,
          replyTo: contactJid,
          phoneNumber: contact,
          rawChat: message.chat,
        },
      });
    });

    it('delivers a group message from a participant', async () => {
      const message = await receive({ from: contact, text: 'hello all', group: { id: group } });
      expect(message).toMatchObject({
        chat: group,
        participant: contactJid,
        senderPhoneJid: null,
        type: 'conversation',
      });
    });

    it('delivers a group message from a LID participant, resolved', async () => {
      const message = await receive({ from: contact, text: 'hello all', group: { id: group }, lid: true });
      expect(message.chat).toBe(group);
      expect(message.participant).toMatch(/^[0-9]{15}@lid$/);
      expect(message.senderPhoneJid).toBe(contactJid);
    });

    it('delivers media with its caption', async () => {
      const message = await receive({
        from: contact,
        media: { type: 'image', caption: 'our new menu' },
      });
      expect(message).toMatchObject({
        type: 'imageMessage',
        text: 'our new menu',
        media: {
          type: 'image',
          mimetype: 'image/jpeg',
          fileName: null,
          caption: 'our new menu',
          seconds: null,
        },
      });
    });

    it('delivers a document with its file name', async () => {
      const message = await receive({
        from: contact,
        media: { type: 'document', mimetype: 'application/pdf', fileName: 'invoice.pdf' },
      });
      expect(message).toMatchObject({
        type: 'documentMessage',
        text: '',
        media: { type: 'document', mimetype: 'application/pdf', fileName: 'invoice.pdf', caption: null },
      });
    });

    it('delivers an interactive reply whose text is the selected id', async () => {
      const message = await receive({
        from: contact,
        interaction: { type: 'quick_reply', id: 'confirm_order', label: 'Yes, confirm' },
      });
      expect(message).toMatchObject({
        type: 'interactiveResponseMessage',
        text: 'confirm_order',
        interaction: { type: 'quick_reply', id: 'confirm_order', label: 'Yes, confirm' },
      });
    });

    it('is refused when nobody has the session open', async () => {
      const error = await driver()
        .control()
        .inbound(freshRef(), { from: contact, text: 'hi' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkSendError);
      expect(error).toMatchObject({ code: 'session_not_connected' });
    });

    it('is refused while the session waits for a login', async () => {
      const network = driver();
      const ref = freshRef();
      await (await open(network, ref, false)).events.waitForLink('qr');
      await expect(network.control().inbound(ref, { from: contact, text: 'hi' })).rejects.toMatchObject({
        code: 'session_not_connected',
      });
    });

    it('stays pending at the network until recorded, and is offered again every interval', async () => {
      const network = driver();
      const { ref, events } = await connected(network);
      events.failNextInbound(2);
      const { id } = await network.control().inbound(ref, { from: contact, text: 'first' });
      await network.control().inbound(ref, { from: contact, text: 'second' });

      const delivered = await events.waitForInbound(2);
      expect(delivered.map((message) => message.text)).toEqual(['first', 'second']); // order kept
      expect(delivered[0]?.id).toBe(id);
      expect(events.deliveryAttempts).toBeGreaterThanOrEqual(4);
      await eventually('acknowledged', async () => (await store.pendingInbound(ref)).length === 0);
    });
  });

  describe('received media files', () => {
    const contact = '254711000222';
    const read = async (stream: NodeJS.ReadableStream) => {
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    };

    it('serves the file a contact attached, byte for byte, from any worker of the network', async () => {
      const network = driver();
      const { ref } = await connected(network);
      const bytes = Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x42]);
      const { id } = await network
        .control()
        .inbound(ref, { from: contact, media: { type: 'image', data: bytes.toString('base64') } });
      const file = await driver({}, otherWorkerStore).downloadMedia(ref, id, { maxBytes: 100 });
      expect({ mimetype: file.mimetype, fileName: file.fileName, size: file.size }).toEqual({
        mimetype: 'image/jpeg',
        fileName: null,
        size: bytes.length,
      });
      expect((await read(file.data)).equals(bytes)).toBe(true);
    });

    it('has no file for media sent without one, nor for another session; refuses one over the cap', async () => {
      const network = driver();
      const { ref } = await connected(network);
      const codeOf = (promise: Promise<unknown>) =>
        promise.then(
          () => null,
          (error: { code?: string }) => error.code,
        );
      const bare = await network.control().inbound(ref, { from: contact, media: { type: 'video' } });
      const big = await network.control().inbound(ref, {
        from: contact,
        media: { type: 'document', data: Buffer.alloc(101).toString('base64') },
      });
      expect(await codeOf(network.downloadMedia(ref, bare.id, { maxBytes: 100 }))).toBe('media_not_found');
      expect(await codeOf(network.downloadMedia(ref, big.id, { maxBytes: 100 }))).toBe('media_too_large');
      expect(
        await codeOf(network.downloadMedia({ ...ref, sessionId: 'other' }, big.id, { maxBytes: 1_000 })),
      ).toBe('media_not_found');
    });
  });

  describe('network drop', () => {
    it('reconnects by itself with the same number, and delivers what arrived meanwhile', async () => {
      const network = driver();
      const { ref, events, phoneNumber, session } = await connected(network);
      const dropped = events.links.length;

      const before = Date.now();
      await network.control().disconnect(ref, 'network');
      expect(events.links.slice(dropped)).toEqual([{ type: 'connecting' }]);
      await expect(
        session.send({ kind: 'text', to: '254700000001@s.whatsapp.net', text: 'x' }),
      ).rejects.toMatchObject({
        code: 'session_not_connected',
      });
      await network.control().inbound(ref, { from: '254711000111', text: 'while away' });
      expect(events.inbound).toEqual([]);

      await eventually('reconnected', () => events.links.length === dropped + 2);
      expect(Date.now() - before).toBeGreaterThanOrEqual(150);
      expect(events.links.slice(dropped)).toEqual([
        { type: 'connecting' },
        { type: 'connected', phoneNumber },
      ]);
      expect((await events.waitForInbound(1))[0]?.text).toBe('while away');
      await session.send({ kind: 'text', to: '254700000001@s.whatsapp.net', text: 'back' });
    });
  });

  describe('logging out', () => {
    it('by the phone ends the session disconnected/logged_out and frees the number', async () => {
      const network = driver();
      const { ref, events, phoneNumber } = await connected(network);
      await network.control().disconnect(ref, 'logged_out');
      expect(events.last()).toEqual({ type: 'disconnected', reason: 'logged_out' });
      expect(await store.linkedNumber(ref)).toBeNull();
      await expect(network.control().disconnect(ref, 'network')).rejects.toMatchObject({
        code: 'session_not_connected',
      });

      // The credentials are worthless now, and the number can link elsewhere.
      const reopened = await open(network, ref, true);
      expect(await reopened.events.waitForLink('disconnected')).toEqual({
        type: 'disconnected',
        reason: 'logged_out',
      });
      await connected(network, freshRef(), phoneNumber);
    });

    it('by the session (logout) does the same', async () => {
      const network = driver();
      const { ref, session, events, phoneNumber } = await connected(network);
      await session.logout();
      expect(events.last()).toEqual({ type: 'disconnected', reason: 'logged_out' });
      expect(events.linkTypes().filter((type) => type === 'disconnected')).toHaveLength(1);
      expect(await store.linkedNumber(ref)).toBeNull();
      await connected(network, freshRef(), phoneNumber);
      await session.logout(); // idempotent, no second event
      expect(events.linkTypes().filter((type) => type === 'disconnected')).toHaveLength(1);
    });
  });

  describe('closing and moving', () => {
    it('close ends with disconnected/shutdown, keeps the link, and frees the number', async () => {
      const network = driver();
      const { ref, session, events, phoneNumber } = await connected(network);
      await session.close();
      expect(events.last()).toEqual({ type: 'disconnected', reason: 'shutdown' });
      expect(await store.linkedNumber(ref)).toBe(phoneNumber);
      await expect(network.control().inbound(ref, { from: '254711000111' })).rejects.toMatchObject({
        code: 'session_not_connected',
      });
    });

    it('close while waiting for a scan withdraws the QR', async () => {
      const network = driver();
      const ref = freshRef();
      const { session, events } = await open(network, ref, false);
      await events.waitForLink('qr');
      await session.close();
      expect(await store.pendingLogin(ref)).toBeNull();
      await expect(network.control().scan(ref, freshNumber())).rejects.toBeInstanceOf(NotReadyError);
    });

    it('a second open of the same session replaces the first connection', async () => {
      const network = driver();
      const { ref, events, phoneNumber } = await connected(network);
      const replacement = await open(network, ref, true);
      expect(events.last()).toEqual({ type: 'disconnected', reason: 'connection_replaced' });
      expect(await replacement.events.waitForLink('connected')).toEqual({ type: 'connected', phoneNumber });
    });

    it('a session reopened by another worker comes back connected with its number, outbox and undelivered messages', async () => {
      const workerA = driver();
      const workerB = driver({}, otherWorkerStore);
      const { ref, session, events, phoneNumber } = await connected(workerA);
      const sent = await session.send({
        kind: 'text',
        to: '254700000001@s.whatsapp.net',
        text: 'before the move',
      });
      events.failNextInbound(1_000); // worker A can no longer record anything
      const { id } = await workerA.control().inbound(ref, { from: '254711000111', text: 'unrecorded' });
      await eventually('a failed delivery', () => events.deliveryAttempts > 0);
      await session.close(); // shard hand-over

      const moved = await open(workerB, ref, true);
      expect(moved.events.links).toEqual([]);
      await moved.events.waitForLink('connected');
      expect(moved.events.links).toEqual([{ type: 'connecting' }, { type: 'connected', phoneNumber }]);

      expect((await moved.events.waitForInbound(1))[0]?.id).toBe(id);
      const again = await moved.session.send({
        kind: 'text',
        to: '254700000001@s.whatsapp.net',
        text: 'after the move',
      });
      expect((await workerB.control().outbox(ref, 10)).map((entry) => entry.id)).toEqual([again.id, sent.id]);
      // Control calls go to the worker holding the connection: worker A has none any more.
      await expect(workerA.control().disconnect(ref, 'network')).rejects.toMatchObject({
        code: 'session_not_connected',
      });
    });

    it('a reopened session is still "in use" for other sessions', async () => {
      const workerA = driver();
      const workerB = driver({}, otherWorkerStore);
      const { ref, session, phoneNumber } = await connected(workerA);
      await session.close();
      await (await open(workerB, ref, true)).events.waitForLink('connected');

      const other = freshRef();
      await (await open(workerA, other, false)).events.waitForLink('qr');
      await expect(workerA.control().scan(other, phoneNumber)).rejects.toBeInstanceOf(NumberInUseError);
    });
  });
});

// Issue 31: the all-in-one's network lives in its memory, so a restart forgot every link.
describe('SandboxNetworkDriver keeping links with the credentials', () => {
  const secretKey = 'a-secret-key-of-enough-length-0123456789';
  const sessions: NetworkSession[] = [];
  let credentials: MemoryCredentialStore;

  beforeEach(() => {
    credentials = new MemoryCredentialStore();
  });

  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((session) => session.close()));
  });

  /** A worker process: a driver over the in-memory network it started with. */
  function newProcess(network: SandboxStore = new MemorySandboxStore()): SandboxNetworkDriver {
    return new SandboxNetworkDriver(network, { redeliveryIntervalMs: 50 }, { credentials, secretKey });
  }

  async function open(on: SandboxNetworkDriver, ref: SessionRef, linked: boolean, token: number) {
    const events = new SessionRecorder();
    const session = await on.open(ref, events, { linked, token });
    sessions.push(session);
    return { session, events };
  }

  async function link(on: SandboxNetworkDriver, ref: SessionRef, phoneNumber: string, token = 1) {
    const opened = await open(on, ref, false, token);
    await opened.events.waitForLink('qr');
    await on.control().scan(ref, phoneNumber);
    return opened;
  }

  it('a linked session comes back connected with its number on a network that forgot it (restart)', async () => {
    const ref = freshRef();
    const phoneNumber = freshNumber();
    const before = newProcess();
    await link(before, ref, phoneNumber);
    // Kept sealed, as every credential: the number is not readable in the table.
    const stored = (await credentials.read(ref, 'sandbox', ['link'])).get('link');
    expect(stored?.toString('latin1')).not.toContain(phoneNumber);

    const after = newProcess(); // a new process: the network's memory is empty
    const { session, events } = await open(after, ref, true, 2);
    expect(await events.waitForLink('connected')).toEqual({ type: 'connected', phoneNumber });
    const sent = await session.send({ kind: 'text', to: '254700000001@s.whatsapp.net', text: 'back' });
    expect((await after.control().outbox(ref, 1))[0]?.id).toBe(sent.id);
    // The number is this session's again: nobody else can link it.
    const other = freshRef();
    await (await open(after, other, false, 1)).events.waitForLink('qr');
    await expect(after.control().scan(other, phoneNumber)).rejects.toBeInstanceOf(NumberInUseError);
  });

  it('a session whose number another session linked first is logged out, and one that kept nothing too', async () => {
    const ref = freshRef();
    const phoneNumber = freshNumber();
    await link(newProcess(), ref, phoneNumber);

    const after = newProcess();
    await link(after, freshRef(), phoneNumber);
    const moved = await open(after, ref, true, 2);
    expect(await moved.events.waitForLink('disconnected')).toEqual({
      type: 'disconnected',
      reason: 'logged_out',
    });

    const neverLinked = await open(after, freshRef(), true, 1);
    expect(await neverLinked.events.waitForLink('disconnected')).toEqual({
      type: 'disconnected',
      reason: 'logged_out',
    });
  });

  it('a link the device could not keep (a newer owner holds the session) is refused and not kept by the network', async () => {
    const network = new MemorySandboxStore();
    const worker = newProcess(network);
    const ref = freshRef();
    const { events } = await open(worker, ref, false, 1);
    await events.waitForLink('qr');
    credentials.takeOver(ref, 2);
    await expect(worker.control().scan(ref, freshNumber())).rejects.toBeInstanceOf(NotReadyError);
    expect(await network.linkedNumber(ref)).toBeNull();
    expect(events.linkTypes()).not.toContain('connected');
  });

  it('needs the fencing token to keep links', async () => {
    await expect(newProcess().open(freshRef(), new SessionRecorder(), { linked: false })).rejects.toThrow(
      /fencing token/,
    );
  });
});
