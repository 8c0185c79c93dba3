import { USER_DOMAIN } from '../recipient';

// Internal to inbound normalisation (not exported from the lib): the JID shapes the rules tell apart.

/** WhatsApp's status updates arrive as messages in this pseudo-chat; they are never forwarded. */
export const STATUS_BROADCAST_JID = 'status@broadcast';

const GROUP_DOMAIN = 'g.us';
const LID_DOMAIN = 'lid';

function domainOf(jid: string): string {
  return jid.slice(jid.lastIndexOf('@') + 1);
}

export function isGroupJid(jid: string): boolean {
  return domainOf(jid) === GROUP_DOMAIN;
}

export function isLidJid(jid: string): boolean {
  return domainOf(jid) === LID_DOMAIN;
}

/**
 * The digits of a phone-number JID (`2547…@s.whatsapp.net`, also with a device suffix such as
 * `2547…:12@s.whatsapp.net`); null for anything else (LIDs, groups, newsletters).
 */
export function phoneDigitsOf(jid: string): string | null {
  const at = jid.lastIndexOf('@');
  if (at < 0 || jid.slice(at + 1) !== USER_DOMAIN) return null;
  const user = jid.slice(0, at).split(':', 1)[0] ?? '';
  return /^[0-9]+$/.test(user) ? user : null;
}
