import type { proto } from '@whiskeysockets/baileys';
import { deviceJid, type LinkedDevice, takePreKeyBundle } from './linked-device';
import { paddedMessage } from './message-stanzas';
import type { SignalMessageType, SignalParty } from './signal-party';

/**
 * The phones' Signal work, one step at a time: two sends (or a send and a decryption) must never
 * race for one session, so every encryption and decryption of the network goes through one queue.
 */
export class SignalQueue {
  private last: Promise<unknown> = Promise.resolve();

  /** Runs `work` after everything queued before it; a failure does not stop the queue. */
  serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.last.then(work);
    this.last = next.catch(() => undefined);
    return next;
  }

  /** `party` encrypts `message` for a linked device, starting a session from its bundle if it has none. */
  encryptFor(
    party: SignalParty,
    device: LinkedDevice,
    message: proto.IMessage,
  ): Promise<{ type: SignalMessageType; ciphertext: Buffer }> {
    const address = deviceJid(device);
    return this.serially(async () => {
      if (!party.hasSession(address)) await party.startSession(address, takePreKeyBundle(device));
      return party.encrypt(address, paddedMessage(message));
    });
  }
}
