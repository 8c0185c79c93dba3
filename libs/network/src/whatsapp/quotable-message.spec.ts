import { proto } from '@whiskeysockets/baileys';
import { decodeQuotable, encodeQuotable, MAX_QUOTED_BYTES, quotedContent } from './quotable-message';

const size = (message: proto.IMessage) => proto.Message.encode(message).finish().length;

describe('quotedContent: what a quote carries of a message, against Baileys’ protos', () => {
  it('unwraps view-once and ephemeral wrappers and keeps only the content type, without its context', () => {
    const quoted = quotedContent({
      messageContextInfo: { deviceListMetadataVersion: 2 },
      ephemeralMessage: {
        message: {
          viewOnceMessageV2: {
            message: { imageMessage: { caption: 'once', contextInfo: { stanzaId: 'EARLIER' } } },
          },
        },
      },
    });
    expect(proto.Message.toObject(proto.Message.fromObject(quoted!))).toEqual({
      imageMessage: { caption: 'once' },
    });
  });

  it('drops a large thumbnail first, then cuts a very long text, staying within the bound', () => {
    const image = quotedContent({
      imageMessage: { caption: 'big', jpegThumbnail: Buffer.alloc(MAX_QUOTED_BYTES, 1) },
    });
    expect(image?.imageMessage?.caption).toBe('big');
    expect(image?.imageMessage?.jpegThumbnail ?? null).toBeNull();
    const small = quotedContent({
      imageMessage: { caption: 'small', jpegThumbnail: Buffer.alloc(1_000, 1) },
    });
    expect(small?.imageMessage?.jpegThumbnail?.length).toBe(1_000);

    const text = quotedContent({ extendedTextMessage: { text: 'é'.repeat(65_536) } });
    expect(size(text!)).toBeLessThanOrEqual(MAX_QUOTED_BYTES);
    expect(text?.extendedTextMessage?.text).toMatch(/^é+…$/);
    expect(quotedContent({ conversation: 'x'.repeat(70_000) })?.conversation).toHaveLength(4_096);
  });

  it('has nothing to quote in an empty message', () => {
    expect(quotedContent(null)).toBeNull();
    expect(quotedContent({})).toBeNull();
  });

  it('round-trips through its stored form', () => {
    const quotable = {
      id: 'ID1',
      chats: ['1@lid', '2547@s.whatsapp.net'],
      fromMe: false,
      participant: '1@lid',
      message: quotedContent({ conversation: 'hi' })!,
    };
    const back = decodeQuotable(encodeQuotable(quotable));
    expect({ ...back, message: proto.Message.toObject(back.message as proto.Message) }).toEqual({
      ...quotable,
      message: { conversation: 'hi' },
    });
  });
});
