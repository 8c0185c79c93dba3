import type { BinaryNode } from '@whiskeysockets/baileys';
import type { EmulatedCalls } from './calls';
import type { ContactResends } from './contact-resends';
import type { DeviceDelivery } from './delivery';
import { answerDeviceIq, type DeviceIqContext } from './device-iqs';
import type { NetworkDirectory } from './directory';
import type { EmulatedConnection } from './emulator';
import type { GroupAdmin } from './group-admin';
import { child, iqResult } from './iq-nodes';
import type { LinkedDevice } from './linked-device';
import type { EmulatedMediaHost } from './media-host';
import type { PhoneMediaReupload } from './media-reupload';
import type { PhoneInbox } from './phone-inbox';
import type { EmulatedProfiles } from './profiles';

/** The parts of the network that answer what a logged-in device sends. */
export interface DeviceNodeHandlers {
  readonly directory: NetworkDirectory;
  readonly inbox: PhoneInbox;
  readonly delivery: DeviceDelivery;
  readonly mediaReupload: PhoneMediaReupload;
  readonly contactResends: ContactResends;
  readonly media: EmulatedMediaHost;
  readonly groupAdmin: GroupAdmin;
  readonly profiles: EmulatedProfiles;
  readonly calls: EmulatedCalls;
  /** A stanza the emulator could not handle (kept in the network's `failures`). */
  fail(stanza: BinaryNode, error: unknown): void;
}

/**
 * Routes one node a logged-in device sent to the part of the network that answers it: messages
 * to the recipients' phones, receipts and acks to delivery (and a receipt on to the phone's media
 * re-upload or the contact's resend), `media_conn` to the CDN, `w:g2` to group administration,
 * presence, calls and profile IQs to their owners, and every other IQ to device-iqs.ts.
 */
export function routeDeviceNode(
  handlers: DeviceNodeHandlers,
  device: LinkedDevice,
  connection: EmulatedConnection,
  node: BinaryNode,
): void {
  if (node.tag === 'message') {
    void handlers.inbox.receiveFromDevice(device, connection, node);
    return;
  }
  if (node.tag === 'ack' && node.attrs.class === 'receipt') return handlers.delivery.answered(device, node);
  if (node.tag === 'receipt' || (node.tag === 'ack' && node.attrs.class === 'message')) {
    handlers.delivery.answered(device, node);
    if (node.tag === 'receipt' && !handlers.mediaReupload.onReceipt(device, node))
      handlers.contactResends.onReceipt(device, node).catch((error: unknown) => handlers.fail(node, error));
    return;
  }
  if (node.tag === 'iq' && node.attrs.xmlns === 'w:m' && child(node, 'media_conn')) {
    void handlers.media.mediaConnNode().then((mediaConn) => connection.send(iqResult(node, [mediaConn])));
    return;
  }
  if (node.tag === 'iq' && node.attrs.xmlns === 'w:g2') {
    connection.send(handlers.groupAdmin.answer(node, device.user));
    return;
  }
  if (node.tag === 'presence') return handlers.profiles.onPresence(device.user, node);
  if (node.tag === 'call') {
    const answer = handlers.calls.onDeviceCall(device, node);
    if (answer) connection.send(answer);
    return;
  }
  const profileAnswer = node.tag === 'iq' ? handlers.profiles.answer(node, device.user) : null;
  if (profileAnswer) return connection.send(profileAnswer);
  if (node.tag === 'iq' && (node.attrs.type === 'get' || node.attrs.type === 'set')) {
    connection.send(answerDeviceIq(node, deviceIqContext(handlers, device)));
  }
}

/** What device-iqs.ts reads of the network to answer a device's IQ. */
function deviceIqContext({ directory, profiles }: DeviceNodeHandlers, device: LinkedDevice): DeviceIqContext {
  return {
    device,
    findUser: (jid) => directory.findUser(jid),
    deviceNumbers: (user) => directory.deviceNumbers(user),
    statusNode: (user) => profiles.statusNode(user),
    bundleOf: (jid) => directory.bundleOf(jid),
    unlink: (removed) => directory.unlink(removed),
  };
}
