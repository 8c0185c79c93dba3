import { Curve, proto, WA_ADV_ACCOUNT_SIG_PREFIX, WA_ADV_DEVICE_SIG_PREFIX } from '@whiskeysockets/baileys';
import { createHmac } from 'node:crypto';
import type { CurveKeyPair } from './root-key';

export interface DeviceIdentityInput {
  /** The phone's account signing key (its ADV identity). */
  readonly account: CurveKeyPair;
  /** The linking device's Signal identity public key (32 bytes, from the QR). */
  readonly deviceIdentityKey: Buffer;
  /** The device's advertised secret (from the QR). */
  readonly advSecret: Buffer;
  readonly rawId: number;
  readonly keyIndex: number;
}

/**
 * The `device-identity` of a `pair-success`: the phone signs the device's details and identity key
 * with its account key (ADVSignedDeviceIdentity), and HMACs the whole with the device's adv secret
 * (ADVSignedDeviceIdentityHMAC), exactly what Baileys' configureSuccessfulPairing checks.
 */
export function signedDeviceIdentity(input: DeviceIdentityInput): Uint8Array {
  const details = proto.ADVDeviceIdentity.encode({
    rawId: input.rawId,
    timestamp: Math.floor(Date.now() / 1000),
    keyIndex: input.keyIndex,
    accountType: proto.ADVEncryptionType.E2EE,
    deviceType: proto.ADVEncryptionType.E2EE,
  }).finish();
  const accountSignature = Curve.sign(
    input.account.private,
    Buffer.concat([WA_ADV_ACCOUNT_SIG_PREFIX, details, input.deviceIdentityKey]),
  );
  const signed = proto.ADVSignedDeviceIdentity.encode({
    details,
    accountSignatureKey: input.account.public,
    accountSignature,
  }).finish();
  const hmac = createHmac('sha256', input.advSecret).update(signed).digest();
  return proto.ADVSignedDeviceIdentityHMAC.encode({ details: signed, hmac }).finish();
}

/**
 * Checks the device's answer (`pair-device-sign`): its own signature over the details, its
 * identity key and the account key, and that the account signature is still ours.
 */
export function verifyDeviceSignature(
  encoded: Uint8Array,
  account: CurveKeyPair,
  deviceIdentityKey: Buffer,
): boolean {
  const signed = proto.ADVSignedDeviceIdentity.decode(encoded);
  if (!signed.details || !signed.deviceSignature || !signed.accountSignature) return false;
  const details = Buffer.from(signed.details);
  const accountMessage = Buffer.concat([WA_ADV_ACCOUNT_SIG_PREFIX, details, deviceIdentityKey]);
  const deviceMessage = Buffer.concat([WA_ADV_DEVICE_SIG_PREFIX, details, deviceIdentityKey, account.public]);
  return (
    verify(deviceIdentityKey, deviceMessage, Buffer.from(signed.deviceSignature)) &&
    verify(account.public, accountMessage, Buffer.from(signed.accountSignature))
  );
}

/** libsignal's verifySignature returns false for a wrong signature (Baileys' Curve.verify does not). */
function verify(publicKey: Buffer, message: Buffer, signature: Buffer): boolean {
  const curve = require('libsignal/src/curve') as {
    verifySignature(key: Buffer, message: Buffer, signature: Buffer): boolean;
  };
  try {
    return curve.verifySignature(Buffer.concat([Buffer.from([5]), publicKey]), message, signature) === true;
  } catch {
    return false;
  }
}
