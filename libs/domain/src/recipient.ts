/**
 * Who a message goes to (CONTRACT §5): an international number as 7–15 digits, or a JID exactly as a
 * webhook event gave it in `message.replyTo` (direct, group, LID or newsletter).
 */
const DIGITS = /^[0-9]{7,15}$/;
const REPLY_JID = /^[0-9A-Za-z._:-]{1,128}@(s\.whatsapp\.net|g\.us|lid|newsletter)$/;

export const USER_DOMAIN = 's.whatsapp.net';

export function isValidPhoneNumber(value: string): boolean {
  return DIGITS.test(value);
}

export function isValidRecipient(value: string): boolean {
  return DIGITS.test(value) || REPLY_JID.test(value);
}

/** The remote JID a send addresses: digits become `<digits>@s.whatsapp.net`, JIDs stay as given. */
export function recipientJid(to: string): string {
  return DIGITS.test(to) ? `${to}@${USER_DOMAIN}` : to;
}
