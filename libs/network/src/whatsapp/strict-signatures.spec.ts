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
});
