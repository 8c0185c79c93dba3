import type { InboundNetworkMessage } from '@jumbe/domain';
import { inboundMessageEvent } from './inbound-message-event';
import { streamEventSchema } from './webhook-events';

const NOW = new Date('2026-03-01T10:00:00.123Z');
const SENT = new Date('2026-03-01T09:59:58.000Z');
const PHONE = '254712345678';
const PHONE_JID = `${PHONE}@s.whatsapp.net`;
const LID = '112233445566778@lid';
const GROUP = '120363025246125486@g.us';

function received(overrides: Partial<InboundNetworkMessage> = {}): InboundNetworkMessage {
  return {
    id: '3A0123456789ABCDEF01',
    chat: PHONE_JID,
    participant: null,
    senderPhoneJid: null,
    fromMe: false,
    pushName: 'Amina',
    type: 'conversation',
    text: 'hello',
    interaction: null,
    media: null,
    timestamp: SENT,
    ...overrides,
  };
}

function normalised(overrides: Partial<InboundNetworkMessage> = {}) {
  const event = inboundMessageEvent('acc_1', 'sales', received(overrides), NOW);
  if (event?.event !== 'message.received') throw new Error('expected a message.received event');
  return event;
}

describe('inboundMessageEvent: message.received', () => {
  it('builds the common fields and a direct message from a phone JID', () => {
    expect(inboundMessageEvent('acc_1', 'sales', received(), NOW)).toEqual({
      event: 'message.received',
      timestamp: '2026-03-01T10:00:00.123Z',
      customerId: 'acc_1',
      sessionId: 'sales',
      message: {
        id: '3A0123456789ABCDEF01',
        from: PHONE_JID,
        replyTo: PHONE_JID,
        phoneNumber: PHONE,
        chat: PHONE_JID,
        participant: null,
        rawFrom: PHONE_JID,
        rawChat: PHONE_JID,
        fromMe: false,
        pushName: 'Amina',
        type: 'conversation',
        text: 'hello',
        interaction: null,
        media: null,
        messageTimestamp: '2026-03-01T09:59:58.000Z',
      },
    });
  });

  it('replies to the phone JID when a direct LID chat was resolved', () => {
    const { message } = normalised({ chat: LID, senderPhoneJid: PHONE_JID });
    expect(message).toMatchObject({
      from: PHONE_JID,
      replyTo: PHONE_JID,
      phoneNumber: PHONE,
      chat: LID,
      participant: null,
      rawFrom: LID,
      rawChat: LID,
    });
  });

  it('keeps the LID as sender and reply target when it could not be resolved', () => {
    const { message } = normalised({ chat: LID, senderPhoneJid: null });
    expect(message).toMatchObject({ from: LID, replyTo: LID, phoneNumber: null, rawFrom: LID, rawChat: LID });
  });

  it('replies to the group and names the participant as sender in a group', () => {
    const { message } = normalised({ chat: GROUP, participant: PHONE_JID });
    expect(message).toMatchObject({
      from: PHONE_JID,
      replyTo: GROUP,
      phoneNumber: PHONE,
      chat: GROUP,
      participant: PHONE_JID,
      rawFrom: PHONE_JID,
      rawChat: GROUP,
    });
  });

  it('resolves a LID participant in a group but still replies to the group', () => {
    const { message } = normalised({ chat: GROUP, participant: LID, senderPhoneJid: PHONE_JID });
    expect(message).toMatchObject({
      from: PHONE_JID,
      replyTo: GROUP,
      phoneNumber: PHONE,
      participant: LID,
      rawFrom: LID,
      rawChat: GROUP,
    });
  });

  it('keeps an unresolved LID participant as sender of a group message', () => {
    const { message } = normalised({ chat: GROUP, participant: LID });
    expect(message).toMatchObject({ from: LID, replyTo: GROUP, phoneNumber: null, rawFrom: LID });
  });

  it('reads the number of a phone JID that carries a device suffix', () => {
    const { message } = normalised({ chat: GROUP, participant: `${PHONE}:12@s.whatsapp.net` });
    expect(message.phoneNumber).toBe(PHONE);
  });

  it('passes media metadata through and uses the caption as text', () => {
    const media = {
      type: 'image' as const,
      mimetype: 'image/jpeg',
      fileName: null,
      caption: 'our new menu',
      seconds: null,
    };
    const { message } = normalised({ type: 'imageMessage', text: '', media });
    expect(message.type).toBe('imageMessage');
    expect(message.text).toBe('our new menu');
    expect(message.media).toEqual(media);
    expect(message.media).not.toBe(media);
  });

  it("makes a document's file name well-formed: a lone surrogate becomes U+FFFD, a pair stays", () => {
    const media = {
      type: 'document' as const,
      mimetype: 'application/pdf',
      fileName: 'invoice\ud800 \u{1F600}.pdf',
      caption: null,
      seconds: null,
    };
    const { message } = normalised({ type: 'documentMessage', text: '', media });
    expect(message.media?.fileName).toBe('invoice\ufffd \u{1F600}.pdf');
  });

  it('gives an empty text for media without caption', () => {
    const media = {
      type: 'audio' as const,
      mimetype: 'audio/ogg',
      fileName: null,
      caption: null,
      seconds: 7,
    };
    expect(normalised({ type: 'audioMessage', text: '', media }).message.text).toBe('');
  });

  it('carries the selected id as text of an interactive reply', () => {
    const interaction = { type: 'quick_reply', id: 'confirm_order', label: 'Yes, confirm' };
    const { message } = normalised({ type: 'interactiveResponseMessage', text: 'Yes, confirm', interaction });
    expect(message.type).toBe('interactiveResponseMessage');
    expect(message.text).toBe('confirm_order');
    expect(message.interaction).toEqual(interaction);
  });

  it('ignores status broadcasts', () => {
    expect(
      inboundMessageEvent(
        'acc_1',
        'sales',
        received({ chat: 'status@broadcast', participant: PHONE_JID }),
        NOW,
      ),
    ).toBeNull();
  });

  it("ignores the account's own messages", () => {
    expect(inboundMessageEvent('acc_1', 'sales', received({ fromMe: true }), NOW)).toBeNull();
  });

  it('falls back to the event time when the network time is unreadable', () => {
    expect(normalised({ timestamp: new Date(Number.NaN) }).message.messageTimestamp).toBe(NOW.toISOString());
  });
});

describe('inboundMessageEvent: a message that changes an earlier one', () => {
  const sender = {
    from: PHONE_JID,
    replyTo: PHONE_JID,
    phoneNumber: PHONE,
    chat: PHONE_JID,
    participant: null,
    rawFrom: PHONE_JID,
    rawChat: PHONE_JID,
    pushName: 'Amina',
  };
  const about = { id: '3A0123456789ABCDEF01', messageTimestamp: SENT.toISOString(), messageId: '3A0TARGET' };
  const envelope = { timestamp: NOW.toISOString(), customerId: 'acc_1', sessionId: 'sales' };
  const changed = (change: InboundNetworkMessage['change']) =>
    inboundMessageEvent('acc_1', 'sales', received({ text: '', change }), NOW);

  it('is a message.reaction for a reaction, with the emoji and the sender', () => {
    const event = changed({ kind: 'reaction', messageId: '3A0TARGET', emoji: '👍' });
    expect(event).toEqual({
      event: 'message.reaction',
      ...envelope,
      reaction: { ...about, emoji: '👍', ...sender },
    });
    expect(streamEventSchema.parse(event)).toEqual(event);
  });

  it('is a message.revoked for a deletion for everyone', () => {
    const event = changed({ kind: 'revoke', messageId: '3A0TARGET' });
    expect(event).toEqual({ event: 'message.revoked', ...envelope, revoked: { ...about, ...sender } });
    expect(streamEventSchema.parse(event)).toEqual(event);
  });

  it('is a message.edited for an edit, with the new text', () => {
    const event = changed({ kind: 'edit', messageId: '3A0TARGET', text: 'new text' });
    expect(event).toEqual({
      event: 'message.edited',
      ...envelope,
      edited: { ...about, text: 'new text', ...sender },
    });
    expect(streamEventSchema.parse(event)).toEqual(event);
  });

  it("is nothing for the account's own change", () => {
    const change = { kind: 'reaction' as const, messageId: '3A0TARGET', emoji: '👍' };
    expect(inboundMessageEvent('acc_1', 'sales', received({ fromMe: true, change }), NOW)).toBeNull();
  });
});
