import { aesDecryptGCM, Curve, hkdf } from '@whiskeysockets/baileys';
import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes } from 'node:crypto';
import type { CurveKeyPair } from './root-key';

/** PBKDF2 rounds WhatsApp derives the wrapping key of a pairing code with (Baileys: 2 << 16). */
const CODE_KEY_ROUNDS = 2 << 16;

function codeKey(code: string, salt: Buffer): Buffer {
  return pbkdf2Sync(Buffer.from(code, 'utf-8'), salt, CODE_KEY_ROUNDS, 32, 'sha256');
}

/** The companion's ephemeral key, unwrapped with the code the user typed (salt ‖ iv ‖ AES-CTR). */
export function unwrapWithCode(code: string, wrapped: Buffer): Buffer {
  if (wrapped.length < 80) throw new Error('wrapped key too short');
  const decipher = createDecipheriv(
    'aes-256-ctr',
    codeKey(code, wrapped.subarray(0, 32)),
    wrapped.subarray(32, 48),
  );
  return Buffer.concat([decipher.update(wrapped.subarray(48, 80)), decipher.final()]);
}

/** The phone's ephemeral key, wrapped with the same code for the companion. */
export function wrapWithCode(code: string, publicKey: Buffer): Buffer {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-ctr', codeKey(code, salt), iv);
  return Buffer.concat([salt, iv, cipher.update(publicKey), cipher.final()]);
}

export interface CompanionFinish {
  /** The phone's ephemeral key pair of this exchange. */
  readonly phoneEphemeral: CurveKeyPair;
  /** The companion's ephemeral public key (unwrapped from its hello). */
  readonly companionEphemeral: Buffer;
  /** The phone's identity key pair (its `primary_identity_pub`). */
  readonly phoneIdentity: CurveKeyPair;
  /** `link_code_pairing_wrapped_key_bundle`: salt ‖ iv ‖ AES-GCM(companion id ‖ primary id ‖ random). */
  readonly wrappedKeyBundle: Buffer;
}

/**
 * Opens the companion's key bundle and derives the adv secret both sides now share (the QR flow
 * carries it in the QR instead). Throws when the bundle does not name this phone's identity.
 */
export function advSecretFromFinish(finish: CompanionFinish): {
  advSecret: Buffer;
  companionIdentity: Buffer;
} {
  const companionShared = Curve.sharedKey(finish.phoneEphemeral.private, finish.companionEphemeral);
  const bundle = finish.wrappedKeyBundle;
  const key = Buffer.from(
    hkdf(companionShared, 32, {
      salt: bundle.subarray(0, 32),
      info: 'link_code_pairing_key_bundle_encryption_key',
    }),
  );
  const plain = aesDecryptGCM(bundle.subarray(44), key, bundle.subarray(32, 44), Buffer.alloc(0));
  const companionIdentity = plain.subarray(0, 32);
  if (!plain.subarray(32, 64).equals(finish.phoneIdentity.public))
    throw new Error('key bundle names another phone');
  const random = plain.subarray(64, 96);
  const identityShared = Curve.sharedKey(finish.phoneIdentity.private, companionIdentity);
  const advSecret = Buffer.from(
    hkdf(Buffer.concat([companionShared, identityShared, random]), 32, { info: 'adv_secret' }),
  );
  return { advSecret, companionIdentity: Buffer.from(companionIdentity) };
}
