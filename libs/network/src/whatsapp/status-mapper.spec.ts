import {
  getStatusFromReceiptType,
  type MessageUserReceiptUpdate,
  proto,
  type WAMessageUpdate,
} from '@whiskeysockets/baileys';
import { statusOfAck, statusOfReceipt, statusOfUpdate } from './status-mapper';

const CONTACT = '255700000009@s.whatsapp.net';
const GROUP = '120363025246125486@g.us';
const AT = 1_767_225_600; // 2026-01-01T00:00:00Z
const NOW = new Date('2030-01-01T00:00:00Z');

/** A direct chat's receipt as Baileys' handleReceipt emits it (`messages.update`). */
function receipt(type: string | undefined, fields: Partial<WAMessageUpdate['key']> = {}): WAMessageUpdate {
  return {
    key: { remoteJid: CONTACT, id: '3EB0AAAA', fromMe: true, participant: undefined, ...fields },
    update: { status: getStatusFromReceiptType(type), messageTimestamp: AT },
  };
}

describe('statusOfUpdate: messages.update as Baileys emits it for our own messages', () => {
  it.each([
    [undefined, 'delivered'], // a plain receipt is a delivery
    ['read', 'read'],
    ['played', 'played'],
    ['sender', 'server_ack'],
  ])('maps a %s receipt to %s, at the receipt time', (type, status) => {
    expect(statusOfUpdate(receipt(type), NOW)).toEqual({
      messageId: '3EB0AAAA',
      chat: CONTACT,
      status,
      at: new Date('2026-01-01T00:00:00Z'),
    });
  });

  it('maps the ERROR status of a refused message (a bad ack) to failed, at the time it is seen', () => {
    const update: WAMessageUpdate = {
      key: { remoteJid: CONTACT, fromMe: true, id: '3EB0BBBB' },
      update: { status: proto.WebMessageInfo.Status.ERROR, messageStubParameters: ['479'] },
    };
    expect(statusOfUpdate(update, NOW)).toEqual({
      messageId: '3EB0BBBB',
      chat: CONTACT,
      status: 'failed',
      at: NOW,
    });
  });

  it('ignores a pending status, receipts of messages we received, and updates that are no status', () => {
    const pending = receipt(undefined);
    pending.update.status = proto.WebMessageInfo.Status.PENDING;
    expect(statusOfUpdate(pending, NOW)).toBeNull();
    expect(statusOfUpdate(receipt('read', { fromMe: false }), NOW)).toBeNull();
    const edit: WAMessageUpdate = {
      key: { remoteJid: CONTACT, fromMe: true, id: '3EB0CCCC' },
      update: { message: { editedMessage: { message: { conversation: 'x' } } } },
    };
    expect(statusOfUpdate(edit, NOW)).toBeNull();
  });
});

describe("statusOfAck: the server's ack of a sent message", () => {
  it('is server_ack at the ack time, and nothing when the ack carries an error', () => {
    const ack = { tag: 'ack', attrs: { class: 'message', id: '3EB0EEEE', from: CONTACT, t: String(AT) } };
    expect(statusOfAck(ack, NOW)).toEqual({
      messageId: '3EB0EEEE',
      chat: CONTACT,
      status: 'server_ack',
      at: new Date('2026-01-01T00:00:00Z'),
    });
    expect(
      statusOfAck({ ...ack, attrs: { ...ack.attrs, t: undefined as unknown as string } }, NOW)?.at,
    ).toEqual(NOW);
    expect(statusOfAck({ ...ack, attrs: { ...ack.attrs, error: '479' } }, NOW)).toBeNull();
  });
});

describe('statusOfReceipt: message-receipt.update (one group member) as Baileys emits it', () => {
  const member = (receipt: proto.IUserReceipt): MessageUserReceiptUpdate => ({
    key: { remoteJid: GROUP, id: '3EB0DDDD', fromMe: true, participant: '255700000001@s.whatsapp.net' },
    receipt: { userJid: '255700000001@s.whatsapp.net', ...receipt },
  });

  it('maps a delivery, a read and a play receipt to their step, at its time', () => {
    expect(statusOfReceipt(member({ receiptTimestamp: AT }), NOW)).toMatchObject({
      status: 'delivered',
      chat: GROUP,
      at: new Date('2026-01-01T00:00:00Z'),
    });
    expect(statusOfReceipt(member({ readTimestamp: AT }), NOW)?.status).toBe('read');
    expect(statusOfReceipt(member({ playedTimestamp: AT }), NOW)?.status).toBe('played');
    // Decoded from the wire, timestamps are protobuf Longs.
    const decoded = proto.UserReceipt.decode(
      proto.UserReceipt.encode({ userJid: 'x', readTimestamp: AT }).finish(),
    );
    expect(statusOfReceipt(member(decoded), NOW)).toMatchObject({ status: 'read', at: new Date(AT * 1000) });
  });

  it('ignores receipts without a step and those of messages we did not send', () => {
    expect(statusOfReceipt(member({}), NOW)).toBeNull();
    const theirs = member({ readTimestamp: AT });
    theirs.key.fromMe = false;
    expect(statusOfReceipt(theirs, NOW)).toBeNull();
  });
});
