import { Curve } from '@whiskeysockets/baileys';
import { requireValidSignatures } from './strict-signatures';

describe('signature checks of the real Baileys', () => {
  const signer = Curve.generateKeyPair();
  const other = Curve.generateKeyPair();
  const message = Buffer.from('noise certificate details');
  const signature = Curve.sign(signer.private, message);

  it('accept only a genuine signature once made strict', () => {
    requireValidSignatures();
    requireValidSignatures(); // idempotent
    expect(Curve.verify(signer.public, message, signature)).toBe(true);
    expect(Curve.verify(other.public, message, signature)).toBe(false);
    expect(Curve.verify(signer.public, Buffer.from('other details'), signature)).toBe(false);
    expect(Curve.verify(signer.public, message, Buffer.alloc(64, 7))).toBe(false);
    expect(Curve.verify(signer.public, message, Buffer.alloc(10))).toBe(false);
  });

  it('stay strict for a signature seen valid before: the same bytes only, every time', () => {
    requireValidSignatures();
    expect(Curve.verify(signer.public, message, signature)).toBe(true);
    expect(Curve.verify(signer.public, message, signature)).toBe(true);
    // A remembered signature vouches for nothing else: another key, message or signature.
    expect(Curve.verify(other.public, message, signature)).toBe(false);
    expect(Curve.verify(signer.public, Buffer.concat([message, Buffer.from('!')]), signature)).toBe(false);
    const tampered = Buffer.from(signature);
    tampered[5] ^= 1;
    expect(Curve.verify(signer.public, message, tampered)).toBe(false);
    // The 33-byte form of the same key is the same signature check.
    const prefixed = Buffer.concat([Buffer.from([5]), Buffer.from(signer.public)]);
    expect(Curve.verify(prefixed, message, signature)).toBe(true);
  });
});
