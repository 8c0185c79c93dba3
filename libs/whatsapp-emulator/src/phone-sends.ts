import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import { randomBytes } from 'node:crypto';
import type { ContactResends } from './contact-resends';
import type { NetworkDirectory } from './directory';
import type { EmulatedUser } from './emulated-user';
import type { LidAddressing } from './lid-addressing';
import type { LinkedDevice } from './linked-device';
import { inboundMessageStanza, newMessageId, paddedMessage, stanzaType } from './message-stanzas';
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
      if (message) this.deps.contactResends.remember(device, stanza, from, message, garbledResends);
      this.deps.deliver(device, stanza);
    }
    return id;
  }

  /**
   * `from` sends `message` to the group `groupJid` (`…@g.us`), which `to`'s linked devices are in:
   * each device gets a pre-key message carrying `from`'s sender key, then the `skmsg`, with
   * `participant` naming the sender: by phone number, or in a LID-addressed group (`createGroup`'s,
   * or `addressing`) by LID with `participant_pn`.
   */
  async sendGroupMessage(
    from: EmulatedUser,
    groupJid: string,
    to: EmulatedUser,
    message: proto.IMessage,
    addressing: 'pn' | 'lid' = this.deps.directory.groups.get(groupJid)?.addressing ?? 'pn',
  ): Promise<string> {
    const { signal } = this.deps;
    const devices = this.devicesOf(to);
    const id = newMessageId();
    const { distribution, ciphertext } = await signal.serially(() =>
      from.phone.encryptForGroup(groupJid, from.jid, paddedMessage(message)),
    );
    const senderKey: proto.IMessage = {
      senderKeyDistributionMessage: { groupId: groupJid, axolotlSenderKeyDistributionMessage: distribution },
    };
    for (const device of devices) {
      const enc = await signal.encryptFor(from.phone, device, senderKey);
      this.deps.deliver(
        device,
        inboundMessageStanza({
          id,
          from: groupJid,
          attrs: this.deps.lidAddressing.participant(from, addressing),
          pushName: from.name,
          type: stanzaType(message),
          enc,
          extraEnc: [{ type: 'skmsg', ciphertext: Buffer.from(ciphertext) }],
        }),
      );
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

  private devicesOf(to: EmulatedUser): LinkedDevice[] {
    const devices = this.deps.directory.linkedDevices(to);
    if (devices.length === 0) throw new Error(`${to.phoneNumber} has no linked device`);
    return devices;
  }
}
