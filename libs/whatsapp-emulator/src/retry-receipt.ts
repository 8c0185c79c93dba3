import type { BinaryNode } from '@whiskeysockets/baileys';
import type { EmulatedUser } from './emulated-user';
import { bigEndian } from './iq-nodes';
import type { PreKeyBundle } from './signal-party';

/** Baileys' `KEY_BUNDLE_TYPE`: the key type byte a `<keys>` node names (Curve25519). */
const KEY_BUNDLE_TYPE = Buffer.from([5]);

/**
 * The retry receipt a phone sends for message `id` it could not decrypt, shaped as WhatsApp clients
 * send it (Baileys' `sendRetryRequest`): `<retry count id t v="1" error="0">`, the phone's
 * registration id, and, given `bundle` (from the second retry on), a `<keys>` node with the phone's
 * identity, a one-time pre-key and the signed pre-key, so the sender builds a fresh session from them.
 */
export function retryReceipt(
  recipient: EmulatedUser,
  id: string,
  count: number,
  t: string,
  bundle?: PreKeyBundle,
): BinaryNode {
  const content: BinaryNode[] = [
    { tag: 'retry', attrs: { count: String(count), id, t, v: '1', error: '0' } },
    { tag: 'registration', attrs: {}, content: bigEndian(recipient.phone.registrationId, 4) },
  ];
  if (bundle) content.push(keysNode(bundle));
  return { tag: 'receipt', attrs: { from: recipient.jid, id, type: 'retry', t }, content };
}

/** `<keys>` as Baileys' `extractE2ESessionFromRetryReceipt` reads it (3-byte key ids, 32-byte keys). */
function keysNode(bundle: PreKeyBundle): BinaryNode {
  const { identityKey, signedPreKey, preKey } = bundle;
  const content: BinaryNode[] = [
    { tag: 'type', attrs: {}, content: KEY_BUNDLE_TYPE },
    { tag: 'identity', attrs: {}, content: identityKey },
  ];
  if (preKey) {
    content.push({
      tag: 'key',
      attrs: {},
      content: [
        { tag: 'id', attrs: {}, content: bigEndian(preKey.keyId, 3) },
        { tag: 'value', attrs: {}, content: preKey.publicKey },
      ],
    });
  }
  content.push({
    tag: 'skey',
    attrs: {},
    content: [
      { tag: 'id', attrs: {}, content: bigEndian(signedPreKey.keyId, 3) },
      { tag: 'value', attrs: {}, content: signedPreKey.publicKey },
      { tag: 'signature', attrs: {}, content: signedPreKey.signature },
    ],
  });
  return { tag: 'keys', attrs: {}, content };
}
