import { normalizeMessageContent, proto } from '@whiskeysockets/baileys';
import pino from 'pino';
import type { NetworkSession } from '../network-session';
import type { SessionRef } from '../session-ref';
import { ProcessInboundOutbox } from './inbound-outbox';
import type { ReceivedMessageStore } from './received-message-store';
import { EventRecorder } from './test-support/event-recorder';
import { FakeWhatsApp, type FakeBaileysSocket } from './test-support/fake-baileys';
import { startFileServer, type FileServer } from './test-support/file-server';
import { MemoryCredentialStore } from './test-support/memory-credential-store';
import { MemorySentMessageStore } from './test-support/memory-sent-message-store';
import { WhatsAppNetworkDriver } from './whatsapp-network-driver';

const REF = { accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId: 'default' };
const OTHER_ACCOUNT = { accountId: '0b6a3c52-1d7e-4f80-9a21-3c4d5e6f7a8b', sessionId: 'default' };
const CONTACT = '255700000001@s.whatsapp.net';
const OTHER_CONTACT = '255700000009@s.whatsapp.net';
const GROUP = '120363025246125486@g.us';
const MEMBER = '255700000002@s.whatsapp.net';
const ME = '254712345678@s.whatsapp.net';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** The inbound outbox and received-message table of one database: quotes land beside the outbox rows. */
class QuotingOutbox extends ProcessInboundOutbox implements ReceivedMessageStore {
  readonly quotes = new Map<string, Buffer>();

  override async add(ref: SessionRef, messageId: string, value: Buffer, quote?: Buffer): Promise<void> {
    if (quote) this.quotes.set(`${ref.accountId}/${ref.sessionId}/${messageId}`, quote);
    await super.add(ref, messageId, value);
  }

  async find(ref: SessionRef, messageId: string): Promise<Buffer | null> {
    return this.quotes.get(`${ref.accountId}/${ref.sessionId}/${messageId}`) ?? null;
  }
}

interface Stores {
  outbox: QuotingOutbox;
  sent: MemorySentMessageStore;
}

const newStores = (): Stores => ({ outbox: new QuotingOutbox(), sent: new MemorySentMessageStore() });

/** A linked, connected session on a fake WhatsApp whose stores survive a "restart" (a new driver). */
async function connected(stores: Stores, ref: SessionRef = REF) {
  const network = new FakeWhatsApp();
  const driver = new WhatsAppNetworkDriver({
    credentials: new MemoryCredentialStore(),
    sentMessages: stores.sent,
    inboundOutbox: stores.outbox,
    receivedMessages: stores.outbox,
    secretKey: 'test-secret-key-with-enough-characters',
    logger: pino({ level: 'silent' }),
    socketFactory: network.factory,
    fetchVersion: async () => null,
    connectSpacingMs: 0,
    allowPrivateNetworks: true,
  });
  const events = new EventRecorder();
  const session = await driver.open(ref, events, { linked: false, token: 1 });
  const first = await network.socket(1);
  first.showQr('2@ref');
  await first.linkPhone('254712345678');
  const socket = await network.socket(2);
  socket.open();
  await events.untilEvent('connected');
  /** A contact's message arrives (Baileys' own WebMessageInfo) and is delivered to the worker. */
  const receive = async (message: proto.IWebMessageInfo) => {
    const before = events.inbound.length;
    socket.receive([{ messageTimestamp: 1_800_000_000, pushName: 'Amina', ...message }]);
    await events.until(() => events.inbound.length > before, 'the inbound message');
  };
  return { session, socket, receive };
}

/** What goes on the wire, after a protobuf round trip, unwrapped. */
function wire(socket: FakeBaileysSocket): proto.IMessage {
  const sent = socket.sent.at(-1)!.message.message!;
  return normalizeMessageContent(proto.Message.decode(proto.Message.encode(sent).finish()))!;
}

describe('replies quote a message of the chat (Baileys builds contextInfo from the kept message)', () => {
  it('quotes a received text: stanzaId, the author as participant, the quoted content, no foreign chat', async () => {
    const { session, socket, receive } = await connected(newStores());
    await receive({
      key: { remoteJid: CONTACT, id: 'IN_TEXT_1', fromMe: false },
      message: { conversation: 'Bei gani?' },
    });

    await session.send({ kind: 'text', to: CONTACT, text: 'KSh 500', quotedMessageId: 'IN_TEXT_1' });

    const context = wire(socket).extendedTextMessage?.contextInfo;
    expect(context?.stanzaId).toBe('IN_TEXT_1');
    expect(context?.participant).toBe(CONTACT);
    expect(context?.quotedMessage?.conversation).toBe('Bei gani?');
    // Same chat: no remoteJid, which would show the quote as one from another conversation.
    expect(context?.remoteJid ?? null).toBeNull();
  });

  it('quotes a group member’s image by its member, without the image’s own context', async () => {
    const { session, socket, receive } = await connected(newStores());
    await receive({
      key: { remoteJid: GROUP, id: 'IN_GROUP_1', fromMe: false, participant: MEMBER },
      message: {
        imageMessage: {
          caption: 'this one?',
          mimetype: 'image/jpeg',
          jpegThumbnail: Buffer.alloc(16, 1),
          contextInfo: { stanzaId: 'EARLIER', mentionedJid: [ME] },
        },
      },
    });

    await session.send({ kind: 'text', to: GROUP, text: 'Yes', quotedMessageId: 'IN_GROUP_1' });

    const context = wire(socket).extendedTextMessage?.contextInfo;
    expect(context).toMatchObject({ stanzaId: 'IN_GROUP_1', participant: MEMBER });
    expect(context?.quotedMessage?.imageMessage).toMatchObject({
      caption: 'this one?',
      mimetype: 'image/jpeg',
    });
    expect(context?.quotedMessage?.imageMessage?.contextInfo ?? null).toBeNull();
  });

  it('quotes a message the session sent itself, as ours (the session’s own number as participant)', async () => {
    const { session, socket } = await connected(newStores());
    const sent = await session.send({ kind: 'text', to: CONTACT, text: 'Your order is ready' });

    await session.send({ kind: 'text', to: CONTACT, text: 'Reminder', quotedMessageId: sent.id });

    const context = wire(socket).extendedTextMessage?.contextInfo;
    expect(context?.stanzaId).toBe(sent.id);
    expect(context?.participant).toBe(ME);
    expect(context?.quotedMessage?.extendedTextMessage?.text).toBe('Your order is ready');
  });

  it('quotes from interactive, location and contact messages too', async () => {
    const { session, socket, receive } = await connected(newStores());
    await receive({
      key: { remoteJid: CONTACT, id: 'IN_ASK', fromMe: false },
      message: { conversation: 'Menu?' },
    });

    await session.send({
      kind: 'interactive',
      to: CONTACT,
      text: 'Choose',
      actions: [{ type: 'reply', id: 'a', label: 'A' }],
      quotedMessageId: 'IN_ASK',
    });
    const relayed = proto.Message.decode(proto.Message.encode(socket.relayed.at(-1)!.message).finish());
    expect(relayed.interactiveMessage?.contextInfo).toMatchObject({
      stanzaId: 'IN_ASK',
      participant: CONTACT,
      quotedMessage: { conversation: 'Menu?' },
    });

    await session.send({
      kind: 'location',
      to: CONTACT,
      latitude: 1,
      longitude: 2,
      quotedMessageId: 'IN_ASK',
    });
    expect(wire(socket).locationMessage?.contextInfo?.stanzaId).toBe('IN_ASK');
    await session.send({
      kind: 'contact',
      to: CONTACT,
      contacts: [{ name: 'Amina', phoneNumber: '254712345678' }],
      quotedMessageId: 'IN_ASK',
    });
    const cards = wire(socket);
    expect((cards.contactMessage ?? cards.contactsArrayMessage)?.contextInfo?.stanzaId).toBe('IN_ASK');
  });

  describe('media', () => {
    let server: FileServer;
    beforeAll(async () => (server = await startFileServer({ '/a.png': { type: 'image/png', body: PNG } })));
    afterAll(() => server.close());

    it('a media reply quotes; an unknown quote fails before the file is fetched', async () => {
      const { session, socket, receive } = await connected(newStores());
      await receive({
        key: { remoteJid: CONTACT, id: 'IN_PHOTO', fromMe: false },
        message: { conversation: 'Photo?' },
      });
      await session.send({
        kind: 'media',
        to: CONTACT,
        type: 'image',
        url: `${server.origin}/a.png`,
        quotedMessageId: 'IN_PHOTO',
      });
      expect(wire(socket).imageMessage?.contextInfo?.stanzaId).toBe('IN_PHOTO');
      const uploads = socket.uploads.length;
      await expect(
        session.send({
          kind: 'media',
          to: CONTACT,
          type: 'image',
          url: `${server.origin}/a.png`,
          quotedMessageId: 'NOPE',
        }),
      ).rejects.toMatchObject({ code: 'message_not_found' });
      expect(socket.uploads.length).toBe(uploads);
    });
  });

  it('refuses (message_not_found, nothing sent) an unknown id, another chat’s message and a reaction', async () => {
    const { session, socket, receive } = await connected(newStores());
    await receive({
      key: { remoteJid: CONTACT, id: 'IN_MINE', fromMe: false },
      message: { conversation: 'hi' },
    });
    await receive({
      key: { remoteJid: CONTACT, id: 'IN_REACT', fromMe: false },
      message: { reactionMessage: { key: { id: 'IN_MINE', remoteJid: CONTACT }, text: '👍' } },
    });
    const sent = await session.send({ kind: 'text', to: CONTACT, text: 'to the first contact' });
    const before = socket.sent.length;
    for (const [to, quotedMessageId] of [
      [CONTACT, 'NEVER_SEEN'],
      [OTHER_CONTACT, 'IN_MINE'],
      [OTHER_CONTACT, sent.id],
      [CONTACT, 'IN_REACT'],
    ] as const) {
      await expect(session.send({ kind: 'text', to, text: 'x', quotedMessageId })).rejects.toMatchObject({
        code: 'message_not_found',
        message: expect.stringContaining(quotedMessageId),
      });
    }
    expect(socket.sent.length).toBe(before);
  });

  it('a contact who wrote under a LID is quoted in a reply to their phone number (the event’s replyTo)', async () => {
    const { session, socket, receive } = await connected(newStores());
    socket.lids.set('123456789@lid', CONTACT);
    await receive({
      key: { remoteJid: '123456789@lid', id: 'IN_LID', fromMe: false },
      message: { conversation: 'via lid' },
    });

    await session.send({ kind: 'text', to: CONTACT, text: 'ok', quotedMessageId: 'IN_LID' });

    const context = wire(socket).extendedTextMessage?.contextInfo;
    expect(context).toMatchObject({ stanzaId: 'IN_LID', participant: '123456789@lid' });
    expect(context?.remoteJid ?? null).toBeNull();
  });

  it('keeps quotes sealed in the store: a restarted worker still quotes; another account never does', async () => {
    const stores = newStores();
    const before = await connected(stores);
    await before.receive({
      key: { remoteJid: CONTACT, id: 'IN_DURABLE', fromMe: false },
      message: { conversation: 'secret words' },
    });
    const sent = await before.session.send({ kind: 'text', to: CONTACT, text: 'sent before the restart' });
    const stored = stores.outbox.quotes.get(`${REF.accountId}/${REF.sessionId}/IN_DURABLE`)!;
    expect(stored.toString('latin1')).not.toContain('secret words');
    expect(stores.sent.chats.get(`${REF.accountId}/${REF.sessionId}/${sent.id}`)).toBe(CONTACT);

    const after = await connected(stores);
    await after.session.send({
      kind: 'text',
      to: CONTACT,
      text: 'still here',
      quotedMessageId: 'IN_DURABLE',
    });
    expect(wire(after.socket).extendedTextMessage?.contextInfo?.quotedMessage?.conversation).toBe(
      'secret words',
    );
    await after.session.send({ kind: 'text', to: CONTACT, text: 'and this', quotedMessageId: sent.id });
    expect(
      wire(after.socket).extendedTextMessage?.contextInfo?.quotedMessage?.extendedTextMessage?.text,
    ).toBe('sent before the restart');

    // Even a sealed copy moved under another account's key does not open there.
    stores.outbox.quotes.set(`${OTHER_ACCOUNT.accountId}/${OTHER_ACCOUNT.sessionId}/IN_DURABLE`, stored);
    const stranger: NetworkSession = (await connected(stores, OTHER_ACCOUNT)).session;
    for (const quotedMessageId of ['IN_DURABLE', sent.id]) {
      await expect(
        stranger.send({ kind: 'text', to: CONTACT, text: 'x', quotedMessageId }),
      ).rejects.toMatchObject({ code: 'message_not_found' });
    }
  });
});
