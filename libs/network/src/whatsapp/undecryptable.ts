import { proto, type WAMessage } from '@whiskeysockets/baileys';

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
