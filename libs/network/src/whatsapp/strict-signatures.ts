import { Curve } from '@whiskeysockets/baileys';

/** libsignal's curve (Baileys' own dependency, untyped): true for a valid signature, false otherwise. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { verifySignature } = require('libsignal/src/curve') as {
  verifySignature(pubKey: Buffer, message: Buffer, signature: Buffer): boolean;
};

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
    try {
      const key = pubKey.length === 33 ? pubKey : Buffer.concat([Buffer.from([5]), pubKey]);
      return verifySignature(Buffer.from(key), Buffer.from(message), Buffer.from(signature)) === true;
    } catch {
      return false;
    }
  };
  curve.strict = true;
}
