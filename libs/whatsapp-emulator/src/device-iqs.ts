import type { BinaryNode } from '@whiskeysockets/baileys';
import { bigEndian, bytesOf, child, children, iqError, iqResult, uintOf } from './iq-nodes';
import type { LinkedDevice } from './linked-device';
import type { PreKeyBundle } from './signal-party';
import { answerUsync, type Directory } from './usync';

/** What answering a logged-in device's IQs needs from the network. */
export interface DeviceIqContext extends Directory {
  readonly device: LinkedDevice;
  /** The pre-key bundle of a device JID (a phone or a linked device), one one-time key used up. */
  bundleOf(jid: string): PreKeyBundle | undefined;
  /** The device asked to be unlinked (`remove-companion-device`). */
  unlink(device: LinkedDevice): void;
}

/**
 * The server's answer to an IQ from a logged-in device. Known namespaces are answered the way
 * Baileys needs; anything else gets a clean `501 feature-not-implemented` error, which Baileys
 * reports as a failed query (never a hang).
 */
export function answerDeviceIq(iq: BinaryNode, context: DeviceIqContext): BinaryNode {
  const { xmlns, type } = iq.attrs;
  const first = children(iq)[0]?.tag;
  switch (`${xmlns} ${type} ${first}`) {
    case 'encrypt get count':
      return iqResult(iq, [{ tag: 'count', attrs: { value: String(context.device.preKeys.size) } }]);
    case 'encrypt set registration':
      return uploadPreKeys(iq, context.device);
    case 'encrypt get digest':
      return digest(iq, context.device);
    case 'encrypt set rotate':
      return rotateSignedPreKey(iq, context.device);
    case 'encrypt get key':
      return keyBundles(iq, context);
    case 'usync get usync':
      return answerUsync(iq, context);
    case 'passive set active':
    case 'passive set passive':
    case 'w:p get ping':
    case 'w:stats undefined add':
      return iqResult(iq);
    case 'abt get props':
      return iqResult(iq, [{ tag: 'props', attrs: { protocol: '1', hash: 'emulator' } }]);
    case 'blocklist get undefined':
      return iqResult(iq, [{ tag: 'list', attrs: {} }]);
    case 'privacy get privacy':
      return iqResult(iq, [{ tag: 'privacy', attrs: {}, content: PRIVACY_DEFAULTS }]);
    case 'w:sync:app:state set sync':
      return emptyAppState(iq);
    case 'md set remove-companion-device':
      context.unlink(context.device);
      return iqResult(iq);
    default:
      return iqError(iq, 501, 'feature-not-implemented');
  }
}

const PRIVACY_DEFAULTS: BinaryNode[] = [
  ['last', 'all'],
  ['online', 'all'],
  ['profile', 'all'],
  ['status', 'all'],
  ['readreceipts', 'all'],
  ['groupadd', 'all'],
].map(([name, value]) => ({ tag: 'category', attrs: { name, value } }));

function uploadPreKeys(iq: BinaryNode, device: LinkedDevice): BinaryNode {
  const identity = bytesOf(child(iq, 'identity'));
  if (!identity?.equals(device.identityKey)) return iqError(iq, 406, 'not-acceptable');
  for (const key of children(child(iq, 'list'))) {
    const id = uintOf(child(key, 'id'));
    const value = bytesOf(child(key, 'value'));
    if (id === undefined || value?.length !== 32) return iqError(iq, 400, 'bad-request');
    device.preKeys.set(id, value);
  }
  const signed = readSignedPreKey(child(iq, 'skey'));
  if (signed) Object.assign(device.signedPreKey, signed);
  return iqResult(iq);
}

function rotateSignedPreKey(iq: BinaryNode, device: LinkedDevice): BinaryNode {
  const signed = readSignedPreKey(child(child(iq, 'rotate'), 'skey'));
  if (!signed) return iqError(iq, 400, 'bad-request');
  Object.assign(device.signedPreKey, signed);
  return iqResult(iq);
}

function readSignedPreKey(node: BinaryNode | undefined): LinkedDevice['signedPreKey'] | undefined {
  const keyId = uintOf(child(node, 'id'));
  const publicKey = bytesOf(child(node, 'value'));
  const signature = bytesOf(child(node, 'signature'));
  if (keyId === undefined || publicKey?.length !== 32 || signature?.length !== 64) return undefined;
  return { keyId, publicKey, signature };
}

/** Baileys only checks that a digest comes back; the fields mirror what it uploaded. */
function digest(iq: BinaryNode, device: LinkedDevice): BinaryNode {
  return iqResult(iq, [
    {
      tag: 'digest',
      attrs: {},
      content: [
        { tag: 'type', attrs: {}, content: Buffer.from([5]) },
        {
          tag: 'skey',
          attrs: {},
          content: [{ tag: 'id', attrs: {}, content: bigEndian(device.signedPreKey.keyId, 3) }],
        },
        {
          tag: 'list',
          attrs: {},
          content: [...device.preKeys.keys()].map((id) => ({
            tag: 'id',
            attrs: {},
            content: bigEndian(id, 3),
          })),
        },
      ],
    },
  ]);
}

function keyBundles(iq: BinaryNode, context: DeviceIqContext): BinaryNode {
  const users = children(child(iq, 'key')).map((userNode): BinaryNode => {
    const jid = userNode.attrs.jid ?? '';
    const bundle = context.bundleOf(jid);
    if (!bundle)
      return {
        tag: 'user',
        attrs: { jid },
        content: [{ tag: 'error', attrs: { code: '404', text: 'item-not-found' } }],
      };
    return { tag: 'user', attrs: { jid }, content: bundleNodes(bundle) };
  });
  return iqResult(iq, [{ tag: 'list', attrs: {}, content: users }]);
}

function bundleNodes(bundle: PreKeyBundle): BinaryNode[] {
  const key = (tag: string, id: number, value: Buffer, signature?: Buffer): BinaryNode => ({
    tag,
    attrs: {},
    content: [
      { tag: 'id', attrs: {}, content: bigEndian(id, 3) },
      { tag: 'value', attrs: {}, content: value },
      ...(signature ? [{ tag: 'signature', attrs: {}, content: signature }] : []),
    ],
  });
  return [
    { tag: 'registration', attrs: {}, content: bigEndian(bundle.registrationId, 4) },
    { tag: 'type', attrs: {}, content: Buffer.from([5]) },
    { tag: 'identity', attrs: {}, content: bundle.identityKey },
    key('skey', bundle.signedPreKey.keyId, bundle.signedPreKey.publicKey, bundle.signedPreKey.signature),
    ...(bundle.preKey ? [key('key', bundle.preKey.keyId, bundle.preKey.publicKey)] : []),
  ];
}

/** An account with no app state: every collection the device asks for is empty at version 0. */
function emptyAppState(iq: BinaryNode): BinaryNode {
  const collections = children(child(iq, 'sync')).map((collection) => ({
    tag: 'collection',
    attrs: { name: collection.attrs.name ?? '', version: '0' },
  }));
  return iqResult(iq, [{ tag: 'sync', attrs: {}, content: collections }]);
}
