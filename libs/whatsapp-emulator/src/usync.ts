import type { BinaryNode } from '@whiskeysockets/baileys';
import type { EmulatedUser } from './emulated-user';
import { child, children, iqResult } from './iq-nodes';

/** The users and devices the server knows, as a USync query sees them. */
export interface Directory {
  /** The user a JID (PN or LID, any device) or a `+digits` phone belongs to. */
  findUser(jidOrPhone: string): EmulatedUser | undefined;
  /** The device numbers of a user: 0 (the phone) and every linked device. */
  deviceNumbers(user: EmulatedUser): number[];
  /** usync's status protocol: a user's about (EmulatedProfiles); absent → none. */
  statusNode?(user: EmulatedUser | undefined): BinaryNode;
}

/**
 * Answers a `usync` IQ for the protocols Baileys asks (devices, lid, contact); other protocols get
 * an empty node. A user unknown to the network is answered as not on WhatsApp.
 */
export function answerUsync(iq: BinaryNode, directory: Directory): BinaryNode {
  const usync = child(iq, 'usync');
  const protocols = children(child(usync, 'query')).map((node) => node.tag);
  const users = children(child(usync, 'list')).map((userNode) => {
    const phone = child(userNode, 'contact')?.content;
    const asked =
      userNode.attrs.jid ??
      (typeof phone === 'string' ? phone : Buffer.from((phone as Uint8Array) ?? []).toString());
    const user = directory.findUser(asked);
    const jid = userNode.attrs.jid ?? (user ? user.jid : `${asked.replace(/\D/g, '')}@s.whatsapp.net`);
    return {
      tag: 'user',
      attrs: { jid },
      content: protocols.map((protocol) => answer(protocol, jid, user, directory)),
    };
  });
  return iqResult(iq, [
    {
      tag: 'usync',
      attrs: { ...usync?.attrs },
      content: [
        { tag: 'result', attrs: {} },
        { tag: 'list', attrs: {}, content: users },
      ],
    },
  ]);
}

function answer(
  protocol: string,
  jid: string,
  user: EmulatedUser | undefined,
  directory: Directory,
): BinaryNode {
  switch (protocol) {
    case 'contact':
      return { tag: 'contact', attrs: { type: user ? 'in' : 'out' } };
    case 'lid':
      return { tag: 'lid', attrs: user && !jid.endsWith('@lid') ? { val: user.lid } : {} };
    case 'devices': {
      const devices = user ? directory.deviceNumbers(user) : [];
      return {
        tag: 'devices',
        attrs: {},
        content: [
          {
            tag: 'device-list',
            attrs: {},
            content: devices.map((id) => ({
              tag: 'device',
              attrs: { id: String(id), ...(id ? { 'key-index': String(id) } : {}) },
            })),
          },
        ],
      };
    }
    case 'status':
      return directory.statusNode?.(user) ?? { tag: 'status', attrs: { code: '401' } };
    default:
      return { tag: protocol, attrs: {} };
  }
}
