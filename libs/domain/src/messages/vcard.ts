/**
 * A contact card as WhatsApp shares it (vCard 3.0): the name, and the number both as a `tel` and
 * as `waid`, which WhatsApp uses to offer "Message" and "Add" for the contact.
 */
export function contactVcard(name: string, phoneNumber: string): string {
  return [
    'BEGIN:VCARD',
    'VERSION:3.0',
    `FN:${escapeText(name)}`,
    `TEL;type=CELL;type=VOICE;waid=${phoneNumber}:+${phoneNumber}`,
    'END:VCARD',
  ].join('\n');
}

/** RFC 6350 §3.4 text escaping: a name may hold commas, semicolons, backslashes or newlines. */
function escapeText(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/,/g, '\\,')
    .replace(/;/g, '\\;')
    .replace(/\r\n|\r|\n/g, '\\n');
}
