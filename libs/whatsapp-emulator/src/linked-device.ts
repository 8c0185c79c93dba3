import type { BinaryNode } from '@whiskeysockets/baileys';
import type { EmulatedUser } from './emulated-user';
import type { PreKeyBundle } from './signal-party';

/** What the server knows of a device the phone linked (from the registration, the QR and uploads). */
export interface LinkedDevice {
  readonly user: EmulatedUser;
  /** The device number (1 and up; 0 is the phone). */
  readonly device: number;
  /** The noise static key the device must log in with. */
  readonly noiseKey: Buffer;
  readonly identityKey: Buffer;
  readonly registrationId: number;
  readonly signedPreKey: { keyId: number; publicKey: Buffer; signature: Buffer };
  /** One-time pre-keys the device uploaded, not yet handed out. */
  readonly preKeys: Map<number, Buffer>;
  /** Stanzas that arrived while the device was offline, delivered on its next login. */
  readonly backlog: BinaryNode[];
  /**
   * Messages and receipts handed to its current connection that it has not answered (a receipt or
   * an ack) yet, under unansweredKey (unanswered-stanzas.ts).
   */
  readonly unanswered: Map<string, BinaryNode>;
  /** The phone sent it the initial history bootstrap (once, after the first login). */
  bootstrapped: boolean;
}

/** `254700000001:3@s.whatsapp.net`. */
export function deviceJid(device: LinkedDevice): string {
  return `${device.user.phoneNumber}:${device.device}@s.whatsapp.net`;
}

/** `100000000000001:3@lid`. */
export function deviceLid(device: LinkedDevice): string {
  return `${device.user.lidUser}:${device.device}@lid`;
}

/** The device's bundle with one of its uploaded one-time pre-keys, which is used up. */
export function takePreKeyBundle(device: LinkedDevice): PreKeyBundle {
  const [first] = device.preKeys;
  if (first) device.preKeys.delete(first[0]);
  return {
    registrationId: device.registrationId,
    identityKey: device.identityKey,
    signedPreKey: device.signedPreKey,
    ...(first ? { preKey: { keyId: first[0], publicKey: first[1] } } : {}),
  };
}

/** `user:3@server` → 3; no device part → 0 (the phone). */
export function deviceNumberOf(jid: string): number {
  return Number(jid.split('@')[0]?.split(':')[1] ?? 0);
}
