import { inboundMessageEvent } from '@jumbe/contracts';
import { generateWAMessageContent, proto, type WAMessage } from '@whiskeysockets/baileys';
import { resolveSenderPhoneJid, toInboundMessage } from './inbound-mapper';

const CONTACT = '255700000009@s.whatsapp.net';
const GROUP = '120363025246125486@g.us';
const SENT_AT = 1_767_225_600; // 2026-01-01T00:00:00Z

/** A message exactly as Baileys hands it over: a decoded WebMessageInfo. */
function received(fields: proto.IWebMessageInfo & { key?: Record<string, unknown> }): WAMessage {
  const message = proto.WebMessageInfo.fromObject({
    messageTimestamp: SENT_AT,
    pushName: 'Amina',
    ...fields,
    key: { remoteJid: CONTACT, fromMe: false, id: '3EB0C431C26A1916E2E1', ...fields.key },
  }) as WAMessage;
  // Baileys 7 adds these key fields outside the proto (LID addressing).
  Object.assign(message.key, fields.key ?? {});
  return message;
}

const map = (message: WAMessage, sender: string | null = null) => toInboundMessage(message, sender);

describe('toInboundMessage: fixtures in the shapes Baileys emits', () => {
  it('1. conversation', () => {
    expect(map(received({ message: { conversation: 'Habari yako?' } }))).toEqual({
      id: '3EB0C431C26A1916E2E1',
      chat: CONTACT,
      participant: null,
      senderPhoneJid: null,
      fromMe: false,
      pushName: 'Amina',
      type: 'conversation',
      text: 'Habari yako?',
      interaction: null,
      media: null,
      timestamp: new Date('2026-01-01T00:00:00.000Z'),
    });
  });

  it('2. extendedTextMessage (a reply with a link preview)', () => {
    const message = map(
      received({
        message: {
          extendedTextMessage: {
            text: 'See https://example.com',
            matchedText: 'https://example.com',
            contextInfo: { stanzaId: 'ABC', participant: CONTACT, quotedMessage: { conversation: 'hi' } },
          },
        },
      }),
    );
    expect(message).toMatchObject({ type: 'extendedTextMessage', text: 'See https://example.com' });
  });

  it('3. imageMessage with caption', () => {
    const message = map(
      received({
        message: {
          imageMessage: {
            url: 'https://mmg.whatsapp.net/x',
            mimetype: 'image/jpeg',
            caption: 'Receipt',
            fileLength: 52_311,
            height: 1280,
            width: 720,
            mediaKey: Buffer.alloc(32, 1),
          },
        },
      }),
    );
    expect(message).toMatchObject({
      type: 'imageMessage',
      text: 'Receipt',
      media: { type: 'image', mimetype: 'image/jpeg', fileName: null, caption: 'Receipt', seconds: null },
    });
  });

  it('4. videoMessage with caption and duration', () => {
    const message = map(
      received({ message: { videoMessage: { mimetype: 'video/mp4', caption: 'Demo', seconds: 42 } } }),
    );
    expect(message?.media).toEqual({
      type: 'video',
      mimetype: 'video/mp4',
      fileName: null,
      caption: 'Demo',
      seconds: 42,
    });
  });

  it('5. voice note (audio, ptt) with seconds', () => {
    const message = map(
      received({ message: { audioMessage: { mimetype: 'audio/ogg; codecs=opus', seconds: 7, ptt: true } } }),
    );
    expect(message).toMatchObject({
      type: 'audioMessage',
      text: '',
      media: { type: 'audio', mimetype: 'audio/ogg; codecs=opus', seconds: 7, caption: null },
    });
  });

  it('6. documentMessage with fileName', () => {
    const message = map(
      received({
        message: {
          documentMessage: {
            mimetype: 'application/pdf',
            fileName: 'invoice-0042.pdf',
            title: 'invoice',
            pageCount: 2,
          },
        },
      }),
    );
    expect(message?.media).toEqual({
      type: 'document',
      mimetype: 'application/pdf',
      fileName: 'invoice-0042.pdf',
      caption: null,
      seconds: null,
    });
  });

  it('7. document with caption (documentWithCaptionMessage wrapper)', () => {
    const message = map(
      received({
        message: {
          documentWithCaptionMessage: {
            message: {
              documentMessage: { mimetype: 'application/pdf', fileName: 'menu.pdf', caption: 'Our menu' },
            },
          },
        },
      }),
    );
    expect(message).toMatchObject({
      type: 'documentMessage',
      text: 'Our menu',
      media: { type: 'document', fileName: 'menu.pdf', caption: 'Our menu' },
    });
  });

  it('8. stickerMessage', () => {
    const message = map(
      received({ message: { stickerMessage: { mimetype: 'image/webp', isAnimated: false } } }),
    );
    expect(message).toMatchObject({
      type: 'stickerMessage',
      media: { type: 'sticker', mimetype: 'image/webp' },
    });
  });

  it('9. view-once image (viewOnceMessageV2 wrapper)', () => {
    const message = map(
      received({
        message: {
          viewOnceMessageV2: {
            message: { imageMessage: { mimetype: 'image/jpeg', caption: 'once', viewOnce: true } },
          },
        },
      }),
    );
    expect(message).toMatchObject({ type: 'imageMessage', text: 'once', media: { type: 'image' } });
  });

  it('10. disappearing message (ephemeralMessage wrapper)', () => {
    const message = map(
      received({
        message: { ephemeralMessage: { message: { extendedTextMessage: { text: 'gone in 7 days' } } } },
      }),
    );
    expect(message).toMatchObject({ type: 'extendedTextMessage', text: 'gone in 7 days' });
  });

  it('11. group message: replyTo is the group, participant the sender', () => {
    const message = map(
      received({
        key: { remoteJid: GROUP, participant: '255700000010@s.whatsapp.net', id: 'G1' },
        message: { conversation: 'Morning all' },
      }),
    );
    expect(message).toMatchObject({
      chat: GROUP,
      participant: '255700000010@s.whatsapp.net',
      text: 'Morning all',
    });
    const event = inboundMessageEvent('acc', 'sales', message!, new Date());
    expect(event?.event === 'message.received' && event.message).toMatchObject({
      replyTo: GROUP,
      phoneNumber: '255700000010',
      from: '255700000010@s.whatsapp.net',
    });
  });

  it('12. LID sender in a direct chat, resolved through remoteJidAlt', async () => {
    const raw = received({
      key: {
        remoteJid: '174592201392316@lid',
        remoteJidAlt: '255711000222@s.whatsapp.net',
        addressingMode: 'lid',
      },
      message: { conversation: 'from a LID' },
    });
    const sender = await resolveSenderPhoneJid(raw, async () => null);
    expect(sender).toBe('255711000222@s.whatsapp.net');
    const event = inboundMessageEvent('acc', 'sales', map(raw, sender)!, new Date());
    expect(event?.event === 'message.received' && event.message).toMatchObject({
      chat: '174592201392316@lid',
      replyTo: '255711000222@s.whatsapp.net',
      phoneNumber: '255711000222',
    });
  });

  it('13. LID participant in a group, resolved through the LID mapping store', async () => {
    const raw = received({
      key: { remoteJid: GROUP, participant: '88001122334455@lid', id: 'G2' },
      message: { conversation: 'lid in group' },
    });
    const sender = await resolveSenderPhoneJid(raw, async (lid) =>
      lid === '88001122334455@lid' ? '255722333444:0@s.whatsapp.net' : null,
    );
    expect(sender).toBe('255722333444@s.whatsapp.net');
    expect(map(raw, sender)).toMatchObject({ participant: '88001122334455@lid', senderPhoneJid: sender });
  });

  it('13b. hosted LID sender (@hosted.lid), through its @hosted alt or the LID mapping store', async () => {
    const withAlt = received({
      key: { remoteJid: '99887766554433@hosted.lid', remoteJidAlt: '255733444555:0@hosted' },
      message: { conversation: 'hosted' },
    });
    expect(await resolveSenderPhoneJid(withAlt, async () => null)).toBe('255733444555@s.whatsapp.net');
    const viaStore = received({
      key: { remoteJid: GROUP, participant: '99887766554433@hosted.lid', id: 'G3' },
      message: { conversation: 'hosted in group' },
    });
    const sender = await resolveSenderPhoneJid(viaStore, async (lid) =>
      lid === '99887766554433@lid' ? '255733444555:0@hosted' : null,
    );
    expect(sender).toBe('255733444555@s.whatsapp.net');
  });

  it('14. unresolvable LID stays a LID (nothing invented)', async () => {
    const raw = received({ key: { remoteJid: '174592201392316@lid' }, message: { conversation: 'x' } });
    expect(await resolveSenderPhoneJid(raw, async () => null)).toBeNull();
    expect(await resolveSenderPhoneJid(raw, async () => Promise.reject(new Error('store down')))).toBeNull();
  });

  it('15. buttons reply (buttonsResponseMessage)', () => {
    const message = map(
      received({
        message: {
          buttonsResponseMessage: {
            selectedButtonId: 'confirm_order',
            selectedDisplayText: 'Yes, confirm',
            type: 1,
          },
        },
      }),
    );
    expect(message).toMatchObject({
      type: 'buttonsResponseMessage',
      text: 'confirm_order',
      interaction: { type: 'quick_reply', id: 'confirm_order', label: 'Yes, confirm' },
    });
  });

  it('16. list reply (listResponseMessage)', () => {
    const message = map(
      received({
        message: {
          listResponseMessage: {
            title: 'Large pizza',
            listType: 1,
            singleSelectReply: { selectedRowId: 'pizza_l' },
          },
        },
      }),
    );
    expect(message).toMatchObject({
      type: 'listResponseMessage',
      text: 'pizza_l',
      interaction: { type: 'list', id: 'pizza_l', label: 'Large pizza' },
    });
  });

  it('17. native-flow quick reply (interactiveResponseMessage)', () => {
    const message = map(
      received({
        message: {
          interactiveResponseMessage: {
            body: { text: 'Yes, confirm', format: 1 },
            nativeFlowResponseMessage: {
              name: 'quick_reply',
              paramsJson: JSON.stringify({ display_text: 'Yes, confirm', id: 'confirm_order' }),
              version: 3,
            },
          },
        },
      }),
    );
    expect(message).toMatchObject({
      type: 'interactiveResponseMessage',
      text: 'confirm_order',
      interaction: { type: 'quick_reply', id: 'confirm_order', label: 'Yes, confirm' },
    });
  });

  it('18. native-flow list selection (single_select)', () => {
    const message = map(
      received({
        message: {
          interactiveResponseMessage: {
            body: { text: 'Large pizza' },
            nativeFlowResponseMessage: { name: 'single_select', paramsJson: '{"id":"pizza_l"}', version: 3 },
          },
        },
      }),
    );
    expect(message?.interaction).toEqual({ type: 'single_select', id: 'pizza_l', label: 'Large pizza' });
    expect(message?.text).toBe('pizza_l');
  });

  it('19. template button reply', () => {
    const message = map(
      received({
        message: { templateButtonReplyMessage: { selectedId: 'track', selectedDisplayText: 'Track order' } },
      }),
    );
    expect(message?.interaction).toEqual({ type: 'quick_reply', id: 'track', label: 'Track order' });
  });

  it('20. messageTimestamp as a protobuf Long becomes the same instant', () => {
    const raw = received({ message: { conversation: 'long' } });
    raw.messageTimestamp = {
      low: SENT_AT,
      high: 0,
      unsigned: true,
      toString: () => String(SENT_AT),
    } as never;
    expect(map(raw)?.timestamp.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  describe('ignored', () => {
    it.each([
      ['own messages (fromMe)', received({ key: { fromMe: true }, message: { conversation: 'mine' } })],
      [
        'status broadcasts',
        received({
          key: { remoteJid: 'status@broadcast', participant: CONTACT },
          message: { conversation: 's' },
        }),
      ],
      [
        'other protocol messages (disappearing-messages setting)',
        received({ message: { protocolMessage: { type: 3, ephemeralExpiration: 86_400 } } }),
      ],
      ['a reaction to no message', received({ message: { reactionMessage: { text: '👍' } } })],
      ['key distribution only', received({ message: { senderKeyDistributionMessage: { groupId: GROUP } } })],
      ['stubs without content', received({ messageStubType: 2 })],
    ])('%s', (_what, raw) => {
      expect(map(raw)).toBeNull();
    });
  });
});

describe("toInboundMessage: reactions, deletions and edits, as a sender's Baileys builds them", () => {
  const TARGET = { remoteJid: CONTACT, fromMe: true, id: '3EB0SENTBYUS00000001' };
  /** The content a contact's client sends for `content` (Baileys' own generator). */
  const sentAs = (content: Parameters<typeof generateWAMessageContent>[0]) =>
    generateWAMessageContent(content, { upload: async () => ({}) as never } as never);

  it('maps a reaction to a change with the emoji and the reacted message id, never a received message', async () => {
    const raw = received({
      key: { id: '3A0000000000000000R1' },
      message: await sentAs({ react: { key: TARGET, text: '❤️' } }),
    });
    expect(map(raw)).toMatchObject({
      id: '3A0000000000000000R1',
      chat: CONTACT,
      pushName: 'Amina',
      type: 'reactionMessage',
      change: { kind: 'reaction', messageId: TARGET.id, emoji: '❤️' },
    });
    // A reaction is its own event, never a message.received.
    expect(inboundMessageEvent('acc', 'default', map(raw)!, new Date())?.event).toBe('message.reaction');
    const removed = received({ message: await sentAs({ react: { key: TARGET, text: '' } }) });
    expect(map(removed)?.change).toEqual({ kind: 'reaction', messageId: TARGET.id, emoji: '' });
  });

  it('maps a delete-for-everyone to a revoke of the message', async () => {
    const raw = received({
      key: { participant: '255700000001@s.whatsapp.net', remoteJid: GROUP },
      message: await sentAs({ delete: { remoteJid: GROUP, fromMe: false, id: '3A00000000000000DEL1' } }),
    });
    expect(map(raw)).toMatchObject({
      chat: GROUP,
      participant: '255700000001@s.whatsapp.net',
      type: 'protocolMessage',
      change: { kind: 'revoke', messageId: '3A00000000000000DEL1' },
    });
  });

  it('maps an edit to its new text, bare or wrapped in editedMessage as clients send it', async () => {
    const content = await sentAs({
      text: 'Habari, corrected',
      edit: { ...TARGET, fromMe: false, id: '3A0000000000000EDIT1' },
    });
    const change = { kind: 'edit', messageId: '3A0000000000000EDIT1', text: 'Habari, corrected' };
    expect(map(received({ message: content }))?.change).toEqual(change);
    expect(map(received({ message: { editedMessage: { message: content } } }))?.change).toEqual(change);
    const caption = await sentAs({ text: 'x', edit: TARGET });
    caption.protocolMessage!.editedMessage = { imageMessage: { caption: 'new caption' } };
    expect(map(received({ message: caption }))?.change).toMatchObject({ kind: 'edit', text: 'new caption' });
  });
});
