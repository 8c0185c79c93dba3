import type { BinaryNode } from '@whiskeysockets/baileys';
import { child, children } from './iq-nodes';

/**
 * Under what the server keeps a stanza it handed to a device until the device answers it
 * (LinkedDevice.unanswered); undefined for a stanza it does not wait on. A message waits under its
 * id (the device's receipt or `<ack class="message">` answers it); a receipt (a contact's retry
 * receipt) under a key of its own, answered by the device's `<ack class="receipt">`.
 *
 * Why receipts too: Baileys acks a receipt only once it has handled it, after resending the
 * message a retry receipt asks for (`handleReceipt`'s `finally`, Socket/messages-recv.js), and
 * takes receipts from the offline queue (`offline` attribute, `offlineNodeProcessor`): the ack is
 * what tells WhatsApp it may forget the receipt, and one never acked comes again on the next
 * login. Before, the emulator forgot a retry receipt once sent: when the stream ended while
 * Baileys was resending (`Connection Closed`, the ack failing with it) the contact never got a copy
 * it could read, although the send was answered with an id (the fault schedule's seed 1, issue 28).
 */
export function unansweredKey(stanza: BinaryNode): string | undefined {
  if (stanza.tag === 'message') return stanza.attrs.id ?? '';
  if (stanza.tag === 'receipt') return receiptKey(stanza.attrs.id ?? '');
  return undefined;
}

/** What a device's answer (a receipt, or an ack of a message or of a receipt) answers. */
export function answeredKeys(answer: BinaryNode): string[] {
  if (answer.tag === 'ack' && answer.attrs.class === 'receipt') return [receiptKey(answer.attrs.id ?? '')];
  const ids = [answer.attrs.id, ...children(child(answer, 'list')).map((item) => item.attrs.id)];
  return ids.filter((id): id is string => !!id);
}

/** A receipt's key: apart from a message of the same id (a retry receipt names the message). */
function receiptKey(id: string): string {
  return `receipt:${id}`;
}
