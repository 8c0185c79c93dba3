import { createHash } from 'node:crypto';
import { Curve } from '@whiskeysockets/baileys';
import { LRUCache } from 'lru-cache';

/** libsignal's curve (Baileys' own dependency, untyped): true for a valid signature, false otherwise. */
const { verifySignature } = require('libsignal/src/curve') as {
  verifySignature(pubKey: Buffer, message: Buffer, signature: Buffer): boolean;
};

/**
 * Signatures already found valid, by a digest of (key, message, signature). Every connection to
 * the same server presents the same certificate chain, and libsignal checks a signature in pure
 * JavaScript (about 12 ms each on our machines, two per Noise handshake: a quarter of a worker's
 * CPU while it restores hundreds of sessions). A valid signature stays valid for the same bytes,
 * so answering from here is the same check, not a weaker one; only `true` is kept, so a forged
 * chain is verified (and refused) every time. Bounded: one chain per server, a few servers.
 */
const verified = new LRUCache<string, true>({ max: 256 });

function digestOf(key: Uint8Array, message: Uint8Array, signature: Uint8Array): string {
  return createHash('sha256')
    .update(Buffer.from([key.length]))
    .update(key)
    .update(Buffer.from([signature.length]))
    .update(signature)
    .update(message)
    .digest('base64');
}

function verifyStrictly(pubKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    const key = pubKey.length === 33 ? pubKey : Buffer.concat([Buffer.from([5]), pubKey]);
    return verifySignature(Buffer.from(key), Buffer.from(message), Buffer.from(signature)) === true;
  } catch {
    return false;
  }
}

/**
 * Baileys 7.0.0-rc14's `Curve.verify` counts a signature as valid whenever libsignal's
 * `verifySignature` does not throw, but libsignal returns `false` for a wrong signature instead of
 * throwing. So Baileys accepted ANY noise certificate signature (a server that is not WhatsApp
 * passed the handshake) and any account signature in pair-success. This makes the check strict:
 * valid only when libsignal says true. It never weakens anything; idempotent.
 */
export function requireValidSignatures(): void {
  const curve = Curve as {
    verify: (pubKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;
    strict?: true;
  };
  if (curve.strict) return;
  curve.verify = (pubKey, message, signature) => {
    const digest = digestOf(pubKey, message, signature);
    if (verified.has(digest)) return true;
    const valid = verifyStrictly(pubKey, message, signature);
    if (valid) verified.set(digest, true);
    return valid;
  };
  curve.strict = true;
}
