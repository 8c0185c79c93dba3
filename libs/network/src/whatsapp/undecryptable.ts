import {
  isJidStatusBroadcast,
  MISSING_KEYS_ERROR_TEXT,
  NO_MESSAGE_FOUND_ERROR_TEXT,
  proto,
  type WAMessage,
} from '@whiskeysockets/baileys';

/**
 * Why Baileys could not decrypt a received message, or null for any other message. Baileys
 * (Socket/messages-recv.js) answers such a message with a retry receipt and emits it as a stub
 * without content (`messageStubType` CIPHERTEXT, the error text, e.g. "No session", as its first
 * parameter): nothing of it can be delivered, but a number that keeps getting these (Baileys issue
 * 2331, sessions lost in the PN→LID migration) has silently stopped receiving, so it is counted.
 */
export function undecryptableReason(message: WAMessage): string | null {
  if (message.messageStubType !== proto.WebMessageInfo.StubType.CIPHERTEXT) return null;
  return message.messageStubParameters?.[0] ?? 'unknown';
}

/**
 * Whether Baileys answered this undecryptable message with a retry receipt, so its sender's phone
 * sends it again (same id, a fresh Signal session) about a round trip later. Not for a copy whose
 * keys were used already (`Key used already or never filled`: Baileys only nacks it), one that
 * came without ciphertext (Baileys asks the phone for a placeholder instead), the account's own
 * peer messages or status broadcasts (`messages-recv.js` handleMessage, 7.0.0-rc14).
 */
export function resendAsked(message: WAMessage): boolean {
  const reason = undecryptableReason(message);
  return (
    reason !== null &&
    reason !== MISSING_KEYS_ERROR_TEXT &&
    reason !== NO_MESSAGE_FOUND_ERROR_TEXT &&
    message.category !== 'peer' &&
    !isJidStatusBroadcast(message.key?.remoteJid ?? '')
  );
}
