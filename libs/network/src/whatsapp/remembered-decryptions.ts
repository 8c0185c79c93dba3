import { createHash } from 'node:crypto';
import type { SocketConfig } from '@whiskeysockets/baileys';
import type { LRUCache } from 'lru-cache';

type MakeSignalRepository = SocketConfig['makeSignalRepository'];

/** Plaintexts of ciphertexts this session decrypted, under rememberedDecryptionKey. */
export type RememberedDecryptions = LRUCache<string, Uint8Array>;

/**
 * The repository `make` makes, with one change: the plaintext of each ciphertext it decrypts is
 * kept in `remembered` (per session, across its sockets), and the same ciphertext again is answered
 * from there instead of by libsignal.
 *
 * Why: Baileys decrypts a message (and stores the ratchet step) before it sends the receipt, and
 * emits the message only after (Socket/messages-recv.js `handleMessage`: `decrypt()`, then
 * `sendReceipt`, then `upsertMessage`). When the stream ends in between, the receipt throws
 * `Connection Closed` and the message is never emitted; WhatsApp, having no receipt, delivers the
 * same stanza again on the next connection, but its keys are used up: libsignal fails with `Key used
 * already or never filled`, which Baileys answers with a nack (487, `MISSING_KEYS_ERROR_TEXT`)
 * and no retry receipt, and WhatsApp forgets the message (the fault schedule's seed 6, issue 28: a
 * contact's resend lost at an unknown stream error). Answered from here, the copy is receipted and
 * emitted like the first; one that was emitted before is dropped by the receiver (by id).
 */
export function rememberedDecryptions(
  make: MakeSignalRepository,
  remembered: RememberedDecryptions,
): MakeSignalRepository {
  return (auth, logger, pnToLIDFunc) => {
    const repository = make(auth, logger, pnToLIDFunc);
    const once = async (key: string, decrypt: () => Promise<Uint8Array>): Promise<Uint8Array> => {
      const known = remembered.get(key);
      if (known) return known;
      const plaintext = await decrypt();
      remembered.set(key, plaintext);
      return plaintext;
    };
    return {
      ...repository,
      decryptMessage: (opts) =>
        once(rememberedDecryptionKey(opts.jid, opts.type, opts.ciphertext), () =>
          repository.decryptMessage(opts),
        ),
      decryptGroupMessage: (opts) =>
        once(rememberedDecryptionKey(`${opts.group}/${opts.authorJid}`, 'skmsg', opts.msg), () =>
          repository.decryptGroupMessage(opts),
        ),
    };
  };
}

/** A ciphertext's key: who sent it, its type and a digest of its bytes (never the bytes). */
function rememberedDecryptionKey(sender: string, type: string, ciphertext: Uint8Array): string {
  return `${sender}|${type}|${createHash('sha256').update(ciphertext).digest('base64')}`;
}
