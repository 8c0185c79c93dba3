import type { InteractiveAction } from '@jumbe/contracts';
import { type BinaryNode, normalizeMessageContent, proto } from '@whiskeysockets/baileys';
import pino from 'pino';
import type { NetworkSession } from '../network-session';
import type { OutboundMedia, OutboundMediaType } from '../outbound-message';
import {
  buildInteractiveContent,
  nativeFlowStanzaNodes,
  PRIVACY_MODE_TS_OFFSET_S,
} from './interactive-mapper';
import { fileNameFromUrl } from './media-content';
import { EventRecorder } from './test-support/event-recorder';
import { startFileServer, type FileServer } from './test-support/file-server';
import { FakeWhatsApp, type FakeBaileysSocket } from './test-support/fake-baileys';
import { MemoryCredentialStore } from './test-support/memory-credential-store';
import { MemorySentMessageStore } from './test-support/memory-sent-message-store';
import { WhatsAppNetworkDriver } from './whatsapp-network-driver';
import type { WhatsAppNetworkOptions } from './whatsapp-settings';

const REF = { accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId: 'default' };
const TO = '255700000001@s.whatsapp.net';
const GROUP = '120363025246125486@g.us';
// A 1×1 PNG: real image bytes, so Baileys' own media handling runs as in production.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

async function connected(overrides: Partial<WhatsAppNetworkOptions> = {}) {
  const network = new FakeWhatsApp();
  const driver = new WhatsAppNetworkDriver({
    credentials: new MemoryCredentialStore(),
    secretKey: 'test-secret-key-with-enough-characters',
    logger: pino({ level: 'silent' }),
    socketFactory: network.factory,
    fetchVersion: async () => null,
    connectSpacingMs: 0,
    allowPrivateNetworks: true,
    ...overrides,
  });
  const events = new EventRecorder();
  const session = await driver.open(REF, events, { linked: false, token: 1 });
  const first = await network.socket(1);
  first.showQr('2@ref');
  await first.linkPhone('254712345678');
  const socket = await network.socket(2);
  socket.open();
  await events.untilEvent('connected');
  return { session, socket };
}

/** The relayed message after a protobuf round trip: exactly what goes on the wire, encrypted. */
function onTheWire(message: proto.IMessage): proto.Message {
  const bytes = proto.Message.encode(proto.Message.fromObject(message)).finish();
  return proto.Message.decode(bytes);
}

function buttonsOf(message: proto.Message) {
  return (message.interactiveMessage?.nativeFlowMessage?.buttons ?? []).map((button) => ({
    name: button.name,
    params: JSON.parse(button.buttonParamsJson ?? '{}') as Record<string, unknown>,
  }));
}

describe('interactive messages: every action type as a native-flow message', () => {
  let session: NetworkSession;
  let socket: FakeBaileysSocket;
  beforeAll(async () => ({ session, socket } = await connected()));

  const cases: [string, InteractiveAction, { name: string; params: Record<string, unknown> }][] = [
    [
      'reply → quick_reply',
      { type: 'reply', id: 'confirm_order', label: 'Yes, confirm' },
      { name: 'quick_reply', params: { display_text: 'Yes, confirm', id: 'confirm_order' } },
    ],
    [
      'url → cta_url',
      {
        type: 'url',
        label: 'Track',
        url: 'https://shop.example/track/42',
        merchantUrl: 'https://shop.example',
      },
      {
        name: 'cta_url',
        params: {
          display_text: 'Track',
          url: 'https://shop.example/track/42',
          merchant_url: 'https://shop.example',
        },
      },
    ],
    [
      'copy → cta_copy',
      { type: 'copy', label: 'Copy code', value: 'KARIBU10' },
      { name: 'cta_copy', params: { display_text: 'Copy code', id: 'KARIBU10', copy_code: 'KARIBU10' } },
    ],
    [
      'call → cta_call',
      { type: 'call', label: 'Call us', phoneNumber: '255700000002' },
      { name: 'cta_call', params: { display_text: 'Call us', phone_number: '+255700000002' } },
    ],
    [
      'list → single_select',
      {
        type: 'list',
        label: 'Menu',
        sections: [
          {
            title: 'Pizza',
            rows: [
              { id: 'pizza_l', title: 'Large', description: '12 inch' },
              { id: 'pizza_m', title: 'Medium' },
            ],
          },
        ],
      },
      {
        name: 'single_select',
        params: {
          title: 'Menu',
          sections: [
            {
              title: 'Pizza',
              highlight_label: '',
              rows: [
                { header: '', title: 'Large', description: '12 inch', id: 'pizza_l' },
                { header: '', title: 'Medium', description: '', id: 'pizza_m' },
              ],
            },
          ],
        },
      },
    ],
    [
      'catalog → cta_catalog',
      { type: 'catalog', businessPhoneNumber: '255700000003', label: 'View catalog' },
      {
        name: 'cta_catalog',
        params: { business_phone_number: '255700000003', display_text: 'View catalog' },
      },
    ],
    [
      'location_request → send_location',
      { type: 'location_request', label: 'Share location' },
      { name: 'send_location', params: { display_text: 'Share location' } },
    ],
  ];

  it.each(cases)('%s', async (_name, action, expected) => {
    const key = await session.send({
      kind: 'interactive',
      to: TO,
      text: 'Choose',
      title: 'Duka',
      footer: 'Reply any time',
      actions: [action],
    });
    const relayed = socket.relayed.at(-1)!;
    expect(relayed.jid).toBe(TO);
    expect(relayed.options.messageId).toBe(key.id);
    expect(key).toEqual({ remoteJid: TO, fromMe: true, id: expect.stringMatching(/^[0-9A-F]{16,}$/) });
    const wire = onTheWire(relayed.message);
    expect(wire.interactiveMessage?.body?.text).toBe('Choose');
    expect(wire.interactiveMessage?.header?.title).toBe('Duka');
    expect(wire.interactiveMessage?.footer?.text).toBe('Reply any time');
    expect(wire.interactiveMessage?.nativeFlowMessage?.messageVersion).toBe(1);
    expect(buttonsOf(wire)).toEqual([expected]);
    expectBizNodes(relayed.options.additionalNodes, { direct: true });
  });

  it('several actions keep their order, and a group send carries <biz> without <bot>', async () => {
    await session.send({
      kind: 'interactive',
      to: GROUP,
      text: 'Pick',
      actions: [
        { type: 'reply', id: 'a', label: 'A' },
        { type: 'reply', id: 'b', label: 'B' },
        { type: 'url', label: 'Site', url: 'https://example.com' },
      ],
    });
    const relayed = socket.relayed.at(-1)!;
    const wire = onTheWire(relayed.message);
    expect(buttonsOf(wire).map((button) => button.name)).toEqual(['quick_reply', 'quick_reply', 'cta_url']);
    expect(wire.interactiveMessage?.header).toBeNull();
    expect(wire.interactiveMessage?.footer).toBeNull();
    expectBizNodes(relayed.options.additionalNodes, { direct: false });
  });

  it('the pure mapper gives the same content the driver relays', () => {
    const content = buildInteractiveContent({
      kind: 'interactive',
      to: TO,
      text: 'x',
      actions: [{ type: 'reply', id: 'a', label: 'A' }],
    });
    expect(content.messageContextInfo).toEqual({ deviceListMetadata: {}, deviceListMetadataVersion: 2 });
    expect(nativeFlowStanzaNodes(TO, 1_800_000_000_000)[1]?.attrs['privacy_mode_ts']).toBe(
      String(1_800_000_000 - PRIVACY_MODE_TS_OFFSET_S),
    );
  });
});

function expectBizNodes(nodes: BinaryNode[] | undefined, { direct }: { direct: boolean }): void {
  const biz = nodes?.find((node) => node.tag === 'biz');
  expect(biz?.attrs).toMatchObject({
    actual_actors: '2',
    host_storage: '2',
    privacy_mode_ts: expect.stringMatching(/^\d+$/),
  });
  const children = biz?.content as BinaryNode[];
  expect(children.map((child) => child.tag)).toEqual(['interactive', 'quality_control']);
  expect(children[0]).toEqual({
    tag: 'interactive',
    attrs: { type: 'native_flow', v: '1' },
    content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }],
  });
  expect(nodes?.some((node) => node.tag === 'bot' && node.attrs['biz_bot'] === '1')).toBe(direct);
}

describe('text', () => {
  it('goes out as Baileys builds it, with no link-preview fetch', async () => {
    const { session, socket } = await connected();
    await session.send({ kind: 'text', to: TO, text: 'Order 42: https://shop.example/o/42' });
    const { content, message } = socket.sent.at(-1)!;
    expect(content).toEqual({ text: 'Order 42: https://shop.example/o/42', linkPreview: null });
    const wire = onTheWire(message.message!);
    expect(wire.extendedTextMessage?.text ?? wire.conversation).toBe('Order 42: https://shop.example/o/42');
    expect(wire.extendedTextMessage?.jpegThumbnail ?? null).toBeNull();
  });
});

describe('media by URL', () => {
  let server: FileServer;
  let session: NetworkSession;
  let socket: FakeBaileysSocket;
  const files: Record<string, { type: string; body: Buffer }> = {
    '/photo.png': { type: 'image/png', body: PNG },
    '/clip.mp4': { type: 'video/mp4', body: Buffer.alloc(2048, 7) },
    '/song.mp3': { type: 'audio/mpeg', body: Buffer.alloc(4096, 3) },
    '/note.ogg': { type: 'audio/ogg', body: Buffer.alloc(4096, 5) },
    '/sticker.webp': { type: 'image/webp', body: PNG },
    '/files/Invoice%2042.pdf': { type: 'application/pdf', body: Buffer.from('%PDF-1.4 fake') },
    '/big.bin': { type: 'application/octet-stream', body: Buffer.alloc(64 * 1024, 1) },
  };

  beforeAll(async () => {
    server = await startFileServer(files);
    ({ session, socket } = await connected({ mediaMaxBytes: 32 * 1024 }));
  });
  afterAll(() => server.close());

  const sendMedia = (
    path: string,
    type: OutboundMediaType,
    extra: Pick<OutboundMedia, 'caption' | 'mimetype' | 'fileName' | 'ptt'> = {},
  ) => session.send({ kind: 'media', to: TO, url: `${server.origin}${path}`, type, ...extra });
  const lastSent = () => normalizeMessageContent(onTheWire(socket.sent.at(-1)!.message.message!))!;

  it('image with caption: Baileys gets the bytes, never the URL', async () => {
    await sendMedia('/photo.png', 'image', { caption: 'Receipt' });
    const { content } = socket.sent.at(-1)!;
    expect(Buffer.isBuffer((content as { image: unknown }).image)).toBe(true);
    expect(JSON.stringify(content)).not.toContain(server.origin);
    const image = lastSent().imageMessage!;
    expect(image).toMatchObject({
      caption: 'Receipt',
      mimetype: 'image/png',
      url: 'https://mmg.whatsapp.net/fake/image',
    });
    expect(Number(image.fileLength)).toBe(PNG.length);
    expect(image.mediaKey?.length).toBe(32);
  });

  it('video with caption and an explicit mimetype', async () => {
    await sendMedia('/clip.mp4', 'video', { caption: 'Demo', mimetype: 'video/mp4' });
    expect(lastSent().videoMessage).toMatchObject({ caption: 'Demo', mimetype: 'video/mp4' });
  });

  it('audio (no caption on WhatsApp)', async () => {
    await sendMedia('/song.mp3', 'audio', { caption: 'ignored' });
    const audio = lastSent().audioMessage!;
    expect(audio).toMatchObject({ mimetype: 'audio/mpeg', ptt: false });
  });

  it('audio with ptt: a voice note, Opus in Ogg unless told otherwise', async () => {
    await sendMedia('/note.ogg', 'audio', { ptt: true });
    expect(lastSent().audioMessage).toMatchObject({ mimetype: 'audio/ogg; codecs=opus', ptt: true });
  });

  it('sticker: a WebP sticker message, never a caption', async () => {
    await sendMedia('/sticker.webp', 'sticker');
    expect(lastSent().stickerMessage).toMatchObject({ mimetype: 'image/webp' });
    expect(lastSent().imageMessage ?? null).toBeNull();
  });

  it('document with caption, mimetype and fileName', async () => {
    await sendMedia('/files/Invoice%2042.pdf', 'document', {
      caption: 'Your invoice',
      fileName: 'invoice-42.pdf',
    });
    expect(lastSent().documentMessage).toMatchObject({
      caption: 'Your invoice',
      mimetype: 'application/pdf',
      fileName: 'invoice-42.pdf',
    });
  });

  it('document without fileName is named after the URL', async () => {
    await sendMedia('/files/Invoice%2042.pdf', 'document');
    expect(lastSent().documentMessage?.fileName).toBe('Invoice 42.pdf');
    expect(fileNameFromUrl('https://x.example/')).toBe('file');
  });

  it.each([
    ['a file larger than the limit', '/big.bin'],
    ['a missing file', '/nothing-here.png'],
  ])('refuses %s with media_fetch_failed and sends nothing', async (_what, path) => {
    const before = socket.sent.length;
    await expect(sendMedia(path, 'image')).rejects.toMatchObject({ code: 'media_fetch_failed' });
    expect(socket.sent.length).toBe(before);
  });

  it('refuses non-http(s) URLs before Baileys could open them as files', async () => {
    for (const url of ['file:///etc/passwd', '/etc/passwd', 'ftp://example.com/a.png']) {
      await expect(session.send({ kind: 'media', to: TO, url, type: 'document' })).rejects.toMatchObject({
        code: 'media_fetch_failed',
      });
    }
  });

  it('refuses private addresses unless the operator allows them', async () => {
    const strict = await connected({ allowPrivateNetworks: false });
    await expect(
      strict.session.send({ kind: 'media', to: TO, url: `${server.origin}/photo.png`, type: 'image' }),
    ).rejects.toMatchObject({ code: 'media_fetch_failed', message: expect.stringContaining('127.0.0.1') });
    expect(strict.socket.sent).toHaveLength(0);
  });
});

describe('locations, contact cards and reactions', () => {
  it('a location goes out as a locationMessage with its name and address', async () => {
    const { session, socket } = await connected();
    await session.send({
      kind: 'location',
      to: TO,
      latitude: -1.2921,
      longitude: 36.8219,
      name: 'Duka',
      address: 'Moi Avenue, Nairobi',
    });
    expect(onTheWire(socket.sent.at(-1)!.message.message!).locationMessage).toMatchObject({
      degreesLatitude: -1.2921,
      degreesLongitude: 36.8219,
      name: 'Duka',
      address: 'Moi Avenue, Nairobi',
    });
  });

  it('contacts go out as vCards WhatsApp offers to message or add', async () => {
    const { session, socket } = await connected();
    await session.send({
      kind: 'contact',
      to: TO,
      contacts: [
        { name: 'Amina', phoneNumber: '254712345678' },
        { name: 'Baraka', phoneNumber: '254700000002' },
      ],
    });
    const wire = onTheWire(socket.sent.at(-1)!.message.message!);
    const cards = wire.contactsArrayMessage?.contacts ?? [];
    expect(cards.map((card) => card.displayName)).toEqual(['Amina', 'Baraka']);
    expect(cards[0]?.vcard).toContain('waid=254712345678:+254712345678');
  });

  it('a reaction names a message of the contact as not ours, and one this session sent as ours', async () => {
    const { session, socket } = await connected();
    await session.send({ kind: 'reaction', to: TO, messageId: 'CONTACTS1D', emoji: '👍' });
    expect(onTheWire(socket.sent.at(-1)!.message.message!).reactionMessage).toMatchObject({
      text: '👍',
      key: { remoteJid: TO, id: 'CONTACTS1D', fromMe: false },
    });
    const sent = await session.send({ kind: 'text', to: TO, text: 'ours' });
    await session.send({ kind: 'reaction', to: TO, messageId: sent.id, emoji: '' });
    expect(onTheWire(socket.sent.at(-1)!.message.message!).reactionMessage).toMatchObject({
      text: '',
      key: { id: sent.id, fromMe: true },
    });
  });
});

describe('deleting and editing what the session sent', () => {
  it('deletes for everyone and edits a message the session sent, naming it as ours', async () => {
    const { session, socket } = await connected();
    const sent = await session.send({ kind: 'text', to: TO, text: 'Total: 100' });
    await session.send({ kind: 'edit', to: TO, messageId: sent.id, text: 'Total: 90' });
    const edited = onTheWire(socket.sent.at(-1)!.message.message!);
    expect(edited.protocolMessage).toMatchObject({
      type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
      key: { remoteJid: TO, id: sent.id, fromMe: true },
    });
    await session.send({ kind: 'revoke', to: TO, messageId: sent.id });
    expect(onTheWire(socket.sent.at(-1)!.message.message!).protocolMessage).toMatchObject({
      type: proto.Message.ProtocolMessage.Type.REVOKE,
      key: { id: sent.id, fromMe: true },
    });
  });

  it('refuses a message it has no record of (404) and one past the time limit (409), sending nothing', async () => {
    const store = new MemorySentMessageStore();
    const { session, socket } = await connected({ sentMessages: store });
    const before = socket.sent.length;
    await expect(session.send({ kind: 'revoke', to: TO, messageId: 'NEVERSENT' })).rejects.toMatchObject({
      code: 'message_not_found',
    });
    // Sent twenty minutes ago by this session, before a restart: known only to the durable store.
    await store.save(REF, 'OLDMESSAGE', Buffer.from('sealed'));
    store.times.set(`${REF.accountId}/${REF.sessionId}/OLDMESSAGE`, new Date(Date.now() - 20 * 60_000));
    await expect(
      session.send({ kind: 'edit', to: TO, messageId: 'OLDMESSAGE', text: 'too late' }),
    ).rejects.toMatchObject({ code: 'message_not_editable' });
    expect(socket.sent.length).toBe(before);
  });
});
