import { createHash } from 'node:crypto';
import { Curve } from '@whiskeysockets/baileys';

/**
 * The emulator's own certificate root. It is derived from a public constant on purpose: it signs
 * only the emulator's noise certificates, and a process trusts it only when it loads the trust
 * preload (trust-preload.ts); nothing in the product knows it.
 */
const ROOT_PRIVATE_KEY = createHash('sha256').update('jumbe whatsapp-emulator root key v1').digest();

export interface CurveKeyPair {
  readonly private: Buffer;
  readonly public: Buffer;
}

/** The X25519 public key (32 bytes) matching a private key, as libsignal's curve computes it. */
export function publicKeyOf(privateKey: Buffer): Buffer {
  const curve = require('libsignal/src/curve') as { getPublicFromPrivateKey(k: Buffer): Buffer };
  return Buffer.from(curve.getPublicFromPrivateKey(privateKey)).subarray(1);
}

export const EMULATOR_ROOT: CurveKeyPair = {
  private: ROOT_PRIVATE_KEY,
  public: publicKeyOf(ROOT_PRIVATE_KEY),
};

/** A fresh Curve25519 key pair (libsignal's, as Baileys uses). */
export function newKeyPair(): CurveKeyPair {
  const pair = Curve.generateKeyPair();
  return { private: Buffer.from(pair.private), public: Buffer.from(pair.public) };
}
