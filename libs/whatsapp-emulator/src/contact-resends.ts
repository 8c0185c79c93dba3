import { type BinaryNode, extractE2ESessionFromRetryReceipt, type proto } from '@whiskeysockets/baileys';
import { randomBytes } from 'node:crypto';
import type { EmulatedUser } from './emulated-user';
import { child } from './iq-nodes';
import { deviceJid, type LinkedDevice } from './linked-device';
import type { PreKeyBundle, SignalMessageType } from './signal-party';

/**
 * How often a sender sends one message to one device again: Baileys' `maxMsgRetryCount` (5), which
 * bounds both sides (the receiver stops asking after five retry receipts, `sendRetryRequest`; the
 * sender stops answering after five resends, `willSendMessageAgain`).
 */
export const MAX_RESENDS = 5;

/** How many sent messages the contacts' phones keep for resends (oldest forgotten first). */
const KEPT_MESSAGES = 5_000;

/** A message a contact's phone sent one device, kept so a retry receipt can be answered. */
interface SentCopy {
  readonly from: EmulatedUser;
  readonly message: proto.IMessage;
  /** A group message's sender key, resent inside the pairwise copy (as Baileys' relay adds it). */
  readonly senderKey: proto.Message.ISenderKeyDistributionMessage | undefined;
  /** The stanza as first delivered (its `enc` is replaced on a resend). */
  readonly stanza: BinaryNode;
  resends: number;
  /** Copies still to go out undecryptable (a session the device keeps losing). */
  garbledLeft: number;
}

/** How a kept copy is answered: copies to go out unreadable, and a group message's sender key. */
export interface RememberOptions {
  /** Resends that go out undecryptable again (a session the device keeps losing). */
  readonly garbled?: number;
  /**
   * The sender key the group message was sent with (its `senderKeyDistributionMessage`): the
   * copy is a group message, and a resend carries the key with it.
   */
  readonly senderKey?: proto.Message.ISenderKeyDistributionMessage;
}

export interface ResendDeps {
  /** Encrypts with a fresh session: from the receipt's key bundle, or the server's when it has none. */
  encryptFresh(
    from: EmulatedUser,
    device: LinkedDevice,
    message: proto.IMessage,
    bundle: PreKeyBundle | null,
  ): Promise<{ type: SignalMessageType; ciphertext: Buffer }>;
  deliver(device: LinkedDevice, stanza: BinaryNode): void;
}

/** One resend a contact's phone made, for assertions. */
export interface Resend {
  readonly id: string;
  readonly device: string;
  /** The retry receipt's `count` it answered. */
  readonly count: number;
  /** It carried the device's keys (a fresh session from them rather than from the server). */
  readonly withKeys: boolean;
  readonly decryptable: boolean;
  /** The stanza resent (one pairwise `enc`, addressed as the first copy was). */
  readonly stanza: BinaryNode;
}

/**
 * Contacts' phones answering retry receipts as WhatsApp clients do (Baileys' `sendMessagesAgain`):
 * the phone looks the message up, starts a fresh Signal session with the device (from the keys the
 * receipt carries, from 2 on, or a bundle the server hands out), encrypts again and resends it with
 * the same id, at most MAX_RESENDS times per message and device. A group message is resent the
 * same way, to the asking device only: pairwise (`pkmsg`/`msg`, never `skmsg`, so a device whose
 * sender-key state for the author is spent can read it), still `from` the group with the author
 * as `participant`, the sender key inside (Baileys' `relayMessage` with `participant`).
 */
export class ContactResends {
  readonly resent: Resend[] = [];
  private readonly sent = new Map<string, SentCopy>();
  /** Contacts whose phones are offline: retry receipts for what they sent wait (`phoneBack`). */
  private readonly away = new Set<EmulatedUser>();
  private readonly waiting: { device: LinkedDevice; receipt: BinaryNode; from: EmulatedUser }[] = [];

  constructor(private readonly deps: ResendDeps) {}

  /**
   * `user`'s phone goes offline: a retry receipt for a message it sent reaches it only when it is
   * back (`phoneBack`), and is answered then. WhatsApp queues it for the phone meanwhile.
   */
  phoneAway(user: EmulatedUser): void {
    this.away.add(user);
  }

  /** `user`'s phone is back: the retry receipts that waited for it are answered, oldest first. */
  async phoneBack(user: EmulatedUser): Promise<void> {
    this.away.delete(user);
    const due = this.waiting.filter((waiting) => waiting.from === user);
    this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((waiting) => waiting.from !== user));
    for (const { device, receipt } of due) await this.onReceipt(device, receipt);
  }

  /** Retry receipts waiting for a phone that is offline. */
  waitingReceipts(user: EmulatedUser): number {
    return this.waiting.filter((waiting) => waiting.from === user).length;
  }

  /** `from`'s phone sent `stanza` (carrying `message`, 1:1 or to a group) to `device`. */
  remember(
    device: LinkedDevice,
    stanza: BinaryNode,
    from: EmulatedUser,
    message: proto.IMessage,
    { garbled = 0, senderKey }: RememberOptions = {},
  ): void {
    const key = keyOf(device, stanza.attrs.id ?? '');
    this.sent.delete(key);
    this.sent.set(key, { from, message, senderKey, stanza, resends: 0, garbledLeft: garbled });
    if (this.sent.size > KEPT_MESSAGES) {
      const [oldest] = this.sent.keys();
      if (oldest !== undefined) this.sent.delete(oldest);
    }
  }

  /** The message a contact's phone sent `device` with this id, if still kept. */
  sentMessage(device: LinkedDevice, id: string): proto.IMessage | undefined {
    return this.sent.get(keyOf(device, id))?.message;
  }

  /**
   * The device sent a receipt: a retry receipt for a message a contact sent it is answered with a
   * resend (false for any other receipt, or one past the limit).
   */
  async onReceipt(device: LinkedDevice, receipt: BinaryNode): Promise<boolean> {
    if (receipt.attrs.type !== 'retry') return false;
    const copy = this.sent.get(keyOf(device, receipt.attrs.id ?? ''));
    if (!copy || copy.resends >= MAX_RESENDS) return false;
    if (this.away.has(copy.from)) {
      this.waiting.push({ device, receipt, from: copy.from });
      return true;
    }
    copy.resends += 1;
    const bundle = extractE2ESessionFromRetryReceipt(receipt) as PreKeyBundle | null;
    const garbled = copy.garbledLeft > 0;
    if (garbled) copy.garbledLeft -= 1;
    const enc = garbled
      ? { type: 'msg' as const, ciphertext: randomBytes(64) }
      : await this.deps.encryptFresh(copy.from, device, resentMessage(copy), bundle);
    const count = child(receipt, 'retry')?.attrs.count ?? String(copy.resends);
    const stanza = withEnc(copy.stanza, enc, count);
    this.deps.deliver(device, stanza);
    this.resent.push({
      id: copy.stanza.attrs.id ?? '',
      device: deviceJid(device),
      count: Number(count),
      withKeys: bundle !== null,
      decryptable: !garbled,
      stanza,
    });
    return true;
  }
}

/** What a resend encrypts: the message, and for a group message its sender key too. */
function resentMessage({ message, senderKey }: SentCopy): proto.IMessage {
  return senderKey ? { ...message, senderKeyDistributionMessage: senderKey } : message;
}

function keyOf(device: LinkedDevice, id: string): string {
  return `${deviceJid(device)}/${id}`;
}

/**
 * The stanza again with one new `enc` in place of all of its own (a group copy's `pkmsg` and
 * `skmsg` too); it carries the retry count, as Baileys' relay does.
 */
function withEnc(
  stanza: BinaryNode,
  enc: { type: SignalMessageType; ciphertext: Buffer },
  count: string,
): BinaryNode {
  const { offline: _offline, ...attrs } = stanza.attrs;
  return {
    tag: 'message',
    attrs: { ...attrs, t: String(Math.floor(Date.now() / 1000)) },
    content: [{ tag: 'enc', attrs: { v: '2', type: enc.type, count }, content: enc.ciphertext }],
  };
}
