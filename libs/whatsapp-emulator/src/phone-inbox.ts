import { type BinaryNode, isJidGroup, type proto } from '@whiskeysockets/baileys';
import type { NetworkDirectory } from './directory';
import type { EmulatedConnection } from './emulator';
import type { EmulatedUser } from './emulated-user';
import { MAX_RESENDS } from './contact-resends';
import { bytesOf, child, children, unixNow } from './iq-nodes';
import { deviceJid, deviceNumberOf, type LinkedDevice } from './linked-device';
import { unpaddedMessage } from './message-stanzas';
import { retryReceipt } from './retry-receipt';
import type { SignalQueue } from './signal-queue';
import type { SignalMessageType } from './signal-party';

/** A message a linked device sent, as the recipient's phone decrypted it. */
export interface ReceivedMessage {
  readonly id: string;
  /** The linked device that sent it (`<phone>:<device>@s.whatsapp.net`). */
  readonly sender: string;
  /** The stanza's `to`: the chat it was sent to. */
  readonly chat: string;
  /** The user whose phone decrypted it. */
  readonly recipient: EmulatedUser;
  readonly message: proto.Message;
  /** The whole stanza the device sent (its `biz` node, `device-identity`, ...). */
  readonly stanza: BinaryNode;
}

/** A retry receipt a phone sent, for assertions. */
export interface RetryReceiptSent {
  readonly recipient: EmulatedUser;
  readonly id: string;
  readonly count: number;
  /** The one-time pre-key its `<keys>` offered (from count 2 on); undefined without keys. */
  readonly preKeyId?: number;
}

/** What the phones' inbox needs from the rest of the network. */
export interface InboxDeps {
  readonly directory: NetworkDirectory;
  readonly signal: SignalQueue;
  /** A stanza the emulator could not read (kept in the network's `failures`). */
  fail(stanza: BinaryNode, error: unknown): void;
  /** A phone read a message (the network emits `received`). */
  onReceived(received: ReceivedMessage): void;
  /** Hands a stanza to a device now, or keeps it for its next login. */
  deliver(device: LinkedDevice, stanza: BinaryNode): void;
}

/**
 * The recipients' phones (device 0) reading what linked devices send: each decrypts its copy
 * (or, in a group, the `skmsg` with the sender key), the server acks to the sender and each phone
 * sends a delivery receipt. A phone that cannot decrypt a device's direct message (a Signal session
 * the sender no longer shares: `Bad MAC`, a missing session or pre-key), or is made to fail
 * (failToDecrypt), asks for it again with a retry receipt, as WhatsApp clients do.
 */
export class PhoneInbox {
  /** Everything linked devices sent that a phone decrypted, oldest first. */
  readonly received: ReceivedMessage[] = [];
  /** Stanzas a phone failed to decrypt on purpose (failToDecrypt), oldest first. */
  readonly undecryptable: { recipient: EmulatedUser; stanza: BinaryNode }[] = [];
  /** Recipients whose phone fails to decrypt the next N messages from devices (see failToDecrypt). */
  private readonly decryptionFailures = new Map<EmulatedUser, number>();
  /** Every retry receipt a phone sent, oldest first. */
  readonly retryReceipts: RetryReceiptSent[] = [];
  /** Retry receipts each phone sent, per message id (their `count`). */
  private readonly retriesSent = new Map<string, number>();

  constructor(private readonly deps: InboxDeps) {}

  /** What a user's phone received from linked devices. */
  receivedBy(user: EmulatedUser): ReceivedMessage[] {
    return this.received.filter((message) => message.recipient === user);
  }

  /**
   * `recipient`'s phone says it could not decrypt `message` (a retry receipt with its registration
   * id; count 1, then 2, ... with keys, per message): the sending device is expected to send it
   * again, which lands in `received` once more. Returns false when the sending device is not
   * connected, or the phone already asked MAX_RESENDS times.
   */
  requestRetry(recipient: EmulatedUser, message: ReceivedMessage): boolean {
    const sender = this.deps.directory.device(message.sender);
    if (!sender || !this.deps.directory.connectionOf(sender)) return false;
    return this.sendRetryReceipt(sender, recipient, message.stanza);
  }

  /**
   * `recipient`'s phone fails to decrypt the next `times` messages linked devices send it (as after
   * a lost session): it keeps no plaintext, records the stanza in `undecryptable`, and answers
   * each with a retry receipt (count 1, 2, ... per message, keys from 2 on), so the device must
   * send it again.
   */
  failToDecrypt(recipient: EmulatedUser, times = 1): void {
    this.decryptionFailures.set(recipient, times);
  }

  /**
   * A device sent a message: every recipient phone (device 0) decrypts its copy; the server acks
   * to the sender and each recipient's phone sends a delivery receipt. A group message carries the
   * content once, as an `skmsg`, and pre-key copies of the sender key for members who lack it.
   */
  async receiveFromDevice(
    device: LinkedDevice,
    connection: EmulatedConnection,
    node: BinaryNode,
  ): Promise<void> {
    const { directory, signal } = this.deps;
    const copies = children(child(node, 'participants')).map((to) => ({
      jid: to.attrs.jid ?? '',
      enc: child(to, 'enc'),
    }));
    const direct = child(node, 'enc');
    const skmsg = direct?.attrs.type === 'skmsg' ? direct : undefined;
    if (direct && !skmsg) copies.push({ jid: node.attrs.to ?? '', enc: direct });
    const chat = node.attrs.to ?? '';
    const id = node.attrs.id ?? '';
    const sender = deviceJid(device);
    connection.send({ tag: 'ack', attrs: { class: 'message', id, from: chat, t: unixNow() } });
    const readers = new Set<EmulatedUser>();
    for (const { jid, enc } of copies) {
      const recipient = directory.findUser(jid);
      const ciphertext = bytesOf(enc);
      if (!recipient || !ciphertext || deviceNumberOf(jid) !== 0) continue;
      if (recipient !== device.user && this.failsDecryption(recipient)) {
        this.undecryptable.push({ recipient, stanza: node });
        this.sendRetryReceipt(device, recipient, node);
        continue;
      }
      try {
        const type = enc?.attrs.type as SignalMessageType;
        const plaintext = await signal.serially(() => recipient.phone.decrypt(sender, type, ciphertext));
        const message = unpaddedMessage(plaintext);
        const distribution = message.senderKeyDistributionMessage?.axolotlSenderKeyDistributionMessage;
        if (skmsg && distribution) {
          await signal.serially(() => recipient.phone.processSenderKey(chat, sender, distribution));
          readers.add(recipient);
        } else this.keepReceived({ id, sender, chat, recipient, message, stanza: node }, device, connection);
      } catch (error) {
        this.deps.fail(node, error);
        // A real phone asks for a direct message again (group retries are not emulated).
        if (!skmsg && !isJidGroup(chat) && recipient !== device.user) {
          this.sendRetryReceipt(device, recipient, node);
        }
      }
    }
    const ciphertext = bytesOf(skmsg);
    if (!ciphertext) return;
    // Members who got the sender key with an earlier message read this one with it too.
    for (const member of directory.groups.get(chat)?.members ?? []) {
      if (member.phone.hasSenderKey(chat, sender)) readers.add(member);
    }
    for (const recipient of readers) {
      try {
        const plaintext = await signal.serially(() =>
          recipient.phone.decryptFromGroup(chat, sender, ciphertext),
        );
        const message = unpaddedMessage(plaintext);
        this.keepReceived({ id, sender, chat, recipient, message, stanza: node }, device, connection);
      } catch (error) {
        this.deps.fail(node, error);
      }
    }
  }

  /** A recipient's phone read a device's message: kept for assertions, and the phone's delivery receipt. */
  private keepReceived(
    received: ReceivedMessage,
    device: LinkedDevice,
    connection: EmulatedConnection,
  ): void {
    this.received.push(received);
    this.deps.onReceived(received);
    if (received.recipient === device.user) return;
    const { id, chat, recipient } = received;
    connection.send({
      tag: 'receipt',
      attrs: chat.endsWith('@g.us')
        ? { from: chat, participant: recipient.jid, id, t: unixNow() }
        : { from: recipient.jid, id, t: unixNow() },
    });
  }

  /**
   * `recipient`'s phone asks for `stanza`'s message again: count 1, 2, ... per message, with a fresh
   * pre-key bundle from count 2 on, and no more after MAX_RESENDS (Baileys' `maxMsgRetryCount`, the
   * limit its receiving side keeps too). False when that limit is reached. The server keeps it for a
   * device that went offline meanwhile, as it does any stanza.
   */
  private sendRetryReceipt(device: LinkedDevice, recipient: EmulatedUser, stanza: BinaryNode): boolean {
    const id = stanza.attrs.id ?? '';
    const key = `${recipient.phoneNumber}/${id}`;
    const count = (this.retriesSent.get(key) ?? 0) + 1;
    if (count > MAX_RESENDS) return false;
    this.retriesSent.set(key, count);
    const bundle = count > 1 ? recipient.phone.bundle() : undefined;
    this.deps.deliver(device, retryReceipt(recipient, id, count, stanza.attrs.t ?? unixNow(), bundle));
    this.retryReceipts.push({ recipient, id, count, preKeyId: bundle?.preKey?.keyId });
    return true;
  }

  /** True (once per remaining failure) when `recipient`'s phone must fail this decryption. */
  private failsDecryption(recipient: EmulatedUser): boolean {
    const remaining = this.decryptionFailures.get(recipient) ?? 0;
    if (remaining <= 0) return false;
    this.decryptionFailures.set(recipient, remaining - 1);
    return true;
  }
}
