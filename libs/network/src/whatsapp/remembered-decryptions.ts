import { createHash } from 'node:crypto';
import type { BinaryNode, SocketConfig } from '@whiskeysockets/baileys';
import { LRUCache } from 'lru-cache';

type MakeSignalRepository = SocketConfig['makeSignalRepository'];

/**
 * The plaintexts of ciphertexts a session decrypted (per session, across its sockets), to answer
 * the same stanza delivered again: same message id, same ciphertext.
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
 *
 * Only under the id it was first decrypted under: an old ciphertext replayed under another id is
 * left to libsignal, which refuses it (Signal's protection against replays stays whole).
 */
export class RememberedDecryptions {
  private readonly plaintexts = new LRUCache<string, { id: string; plaintext: Uint8Array }>({
    max: 512,
    maxSize: 1024 * 1024,
    sizeCalculation: ({ plaintext }) => Math.max(1, plaintext.byteLength),
    ttl: 60 * 60 * 1000,
  });
  /** Each recent ciphertext's digest -> the id of the last stanza that carried it. */
  private readonly carriers = new LRUCache<string, string>({ max: 2_048 });

  /** A message stanza arrived (before Baileys decrypts it): notes which id carries its ciphertexts. */
  noteStanza(node: BinaryNode): void {
    const id = node.attrs.id;
    if (!id || !Array.isArray(node.content)) return;
    for (const part of node.content)
      if (part.tag === 'enc' && part.content instanceof Uint8Array)
        this.carriers.set(digest(part.content), id);
  }

  /** The repository `make` makes, its decryptions answered from here for a stanza seen again. */
  repository(make: MakeSignalRepository): MakeSignalRepository {
    return (auth, logger, pnToLIDFunc) => {
      const repository = make(auth, logger, pnToLIDFunc);
      return {
        ...repository,
        decryptMessage: (opts) => this.once(opts.ciphertext, () => repository.decryptMessage(opts)),
        decryptGroupMessage: (opts) => this.once(opts.msg, () => repository.decryptGroupMessage(opts)),
      };
    };
  }

  private async once(ciphertext: Uint8Array, decrypt: () => Promise<Uint8Array>): Promise<Uint8Array> {
    const key = digest(ciphertext);
    const id = this.carriers.get(key);
    const known = this.plaintexts.get(key);
    if (known && id !== undefined && known.id === id) return known.plaintext;
    const plaintext = await decrypt();
    if (id !== undefined) this.plaintexts.set(key, { id, plaintext });
    return plaintext;
  }
}

function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}
