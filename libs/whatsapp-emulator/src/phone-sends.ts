import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import { randomBytes } from 'node:crypto';
import type { ContactResends } from './contact-resends';
import type { NetworkDirectory } from './directory';
import type { EmulatedUser } from './emulated-user';
import type { LidAddressing } from './lid-addressing';
import type { LinkedDevice } from './linked-device';
import {
  type InboundStanza,
  inboundMessageStanza,
  newMessageId,
  paddedMessage,
  stanzaType,
} from './message-stanzas';
import type { SignalQueue } from './signal-queue';

export interface SendOptions {
  readonly id?: string;
  /**
   * Address the sender by LID (with its phone number in `sender_pn`) or by phone number; default:
   * the contact's current addressing (`lidAddressing`).
   */
  readonly addressing?: 'pn' | 'lid';
}

/** What the phones' sends need from the rest of the network. */
export interface SendDeps {
  readonly directory: NetworkDirectory;
  readonly signal: SignalQueue;
  readonly contactResends: ContactResends;
  readonly lidAddressing: LidAddressing;
  deliver(device: LinkedDevice, stanza: BinaryNode): void;
}

/**
 * Phones sending to linked devices: a contact's 1:1 and group messages (Signal-encrypted per
 * device, pre-key message first), messages a device cannot decrypt, and the account's own phone's
 * peer messages (the history bootstrap). Devices offline get them on their next login.
 */
export class PhoneSends {
  /** Each sender's last `skmsg` per group, by `senderKeyOf`: a counter its devices have used. */
  private readonly usedCounters = new Map<string, Buffer>();

  constructor(private readonly deps: SendDeps) {}

  /**
   * `from`'s phone sends `message` to every device `to` has linked, each encrypted with Signal for
   * that device (a pre-key message first); devices offline get it on their next login.
   */
  async sendMessage(
    from: EmulatedUser,
    to: EmulatedUser,
    message: proto.IMessage,
    options: SendOptions = {},
  ): Promise<string> {
    const devices = this.devicesOf(to);
    const id = options.id ?? newMessageId();
    const envelope = this.deps.lidAddressing.envelope(from, options.addressing);
    for (const device of devices) {
      const enc = await this.deps.signal.encryptFor(from.phone, device, message);
      const stanza = inboundMessageStanza({
        id,
        ...envelope,
        pushName: from.name,
        type: stanzaType(message),
        enc,
      });
      this.deps.contactResends.remember(device, stanza, from, message);
      this.deps.deliver(device, stanza);
    }
    return id;
  }

  /**
   * `from` sends `to`'s devices a message they cannot decrypt (a Signal message for a session the
   * device does not have, as after the PN→LID migration lost it; Baileys issue 2331): each device
   * answers with a retry receipt and Baileys emits a CIPHERTEXT stub instead of the message.
   * With `message`, the contact's phone answers each retry receipt by resending it in a fresh
   * session (ContactResends), the first `garbledResends` resends unreadable again.
   */
  sendUndecryptable(
    from: EmulatedUser,
    to: EmulatedUser,
    message?: proto.IMessage,
    garbledResends = 0,
  ): string {
    const devices = this.devicesOf(to);
    const id = newMessageId();
    for (const device of devices) {
      const stanza = inboundMessageStanza({
        id,
        from: from.jid,
        attrs: {},
        pushName: from.name,
        type: message ? stanzaType(message) : 'text',
        enc: { type: 'msg', ciphertext: randomBytes(64) },
      });
      if (message)
        this.deps.contactResends.remember(device, stanza, from, message, { garbled: garbledResends });
      this.deps.deliver(device, stanza);
    }
    return id;
  }

  /**
   * `from` sends `message` to the group `groupJid` (`…@g.us`), which `to`'s linked devices are in:
   * each device gets a pre-key message carrying `from`'s sender key, then the `skmsg`, with
   * `participant` naming the sender: by phone number, or in a LID-addressed group (`createGroup`'s,
   * or `addressing`) by LID with `participant_pn`. The phone keeps each device's copy for a retry
   * receipt (ContactResends resends it pairwise).
   */
  async sendGroupMessage(
    from: EmulatedUser,
    groupJid: string,
    to: EmulatedUser,
    message: proto.IMessage,
    addressing: 'pn' | 'lid' = this.addressingOf(groupJid),
  ): Promise<string> {
    const devices = this.devicesOf(to);
    const id = newMessageId();
    const { senderKey, ciphertext } = await this.encryptForGroup(from, groupJid, message);
    this.usedCounters.set(senderKeyOf(groupJid, from), ciphertext);
    for (const device of devices) {
      const enc = await this.deps.signal.encryptFor(from.phone, device, {
        senderKeyDistributionMessage: senderKey,
      });
      const stanza = this.groupStanza(id, from, groupJid, message, addressing, [
        enc,
        { type: 'skmsg', ciphertext },
      ]);
      this.deps.contactResends.remember(device, stanza, from, message, { senderKey });
      this.deps.deliver(device, stanza);
    }
    return id;
  }

  /**
   * `from` sends the group `groupJid` a message whose copy reaches `to`'s devices as an `skmsg` at a
   * counter they already used (the one `from`'s last group message had): the shape of a message a
   * device decrypted, then lost before its receipt went out (its sender-key chain moved on), which
   * the server delivers again. Baileys fails it (`Received message with old counter`) and sends a
   * retry receipt; the phone resends it pairwise (ContactResends), the first `garbledResends`
   * resends unreadable again. Needs a group message from `from` the devices read before.
   */
  async sendStaleGroupMessage(
    from: EmulatedUser,
    groupJid: string,
    to: EmulatedUser,
    message: proto.IMessage,
    garbledResends = 0,
  ): Promise<string> {
    const devices = this.devicesOf(to);
    const used = this.usedCounters.get(senderKeyOf(groupJid, from));
    if (!used) throw new Error(`${from.phoneNumber} sent ${groupJid} nothing yet: no counter was used`);
    const id = newMessageId();
    // The phone's chain moves on as for any send; this message's own skmsg is never delivered.
    const { senderKey } = await this.encryptForGroup(from, groupJid, message);
    for (const device of devices) {
      const stanza = this.groupStanza(id, from, groupJid, message, this.addressingOf(groupJid), [
        { type: 'skmsg', ciphertext: used },
      ]);
      this.deps.contactResends.remember(device, stanza, from, message, {
        garbled: garbledResends,
        senderKey,
      });
      this.deps.deliver(device, stanza);
    }
    return id;
  }

  /** The account's own phone sends one of its devices a peer message (history, app state keys). */
  async sendPeerMessage(device: LinkedDevice, message: proto.IMessage): Promise<void> {
    const phone = device.user;
    const enc = await this.deps.signal.encryptFor(phone.phone, device, message);
    this.deps.deliver(
      device,
      inboundMessageStanza({
        id: newMessageId(),
        from: phone.jid,
        attrs: { category: 'peer' },
        type: 'text',
        enc,
      }),
    );
  }

  /** `from`'s phone encrypts `message` with its sender key for the group (the key as distributed). */
  private async encryptForGroup(
    from: EmulatedUser,
    groupJid: string,
    message: proto.IMessage,
  ): Promise<{ senderKey: proto.Message.ISenderKeyDistributionMessage; ciphertext: Buffer }> {
    const { distribution, ciphertext } = await this.deps.signal.serially(() =>
      from.phone.encryptForGroup(groupJid, from.jid, paddedMessage(message)),
    );
    return {
      senderKey: { groupId: groupJid, axolotlSenderKeyDistributionMessage: distribution },
      ciphertext: Buffer.from(ciphertext),
    };
  }

  /** A group message's stanza for one device: `from` the group, `participant` the sender. */
  private groupStanza(
    id: string,
    from: EmulatedUser,
    groupJid: string,
    message: proto.IMessage,
    addressing: 'pn' | 'lid',
    [enc, ...extraEnc]: [InboundStanza['enc'], ...InboundStanza['enc'][]],
  ): BinaryNode {
    return inboundMessageStanza({
      id,
      from: groupJid,
      attrs: this.deps.lidAddressing.participant(from, addressing),
      pushName: from.name,
      type: stanzaType(message),
      enc,
      extraEnc,
    });
  }

  private addressingOf(groupJid: string): 'pn' | 'lid' {
    return this.deps.directory.groups.get(groupJid)?.addressing ?? 'pn';
  }

  private devicesOf(to: EmulatedUser): LinkedDevice[] {
    const devices = this.deps.directory.linkedDevices(to);
    if (devices.length === 0) throw new Error(`${to.phoneNumber} has no linked device`);
    return devices;
  }
}

/** A sender key's name in the phones' bookkeeping: the group and the sender. */
function senderKeyOf(groupJid: string, from: EmulatedUser): string {
  return `${groupJid} ${from.jid}`;
}
