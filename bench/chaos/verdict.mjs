// The invariants of a chaos run, computed from what was sent and what arrived.

/** The text of a message a contact's phone decrypted (what the customer sent). */
const textOf = (message) => message.conversation ?? message.extendedTextMessage?.text ?? null;

/**
 * Contacts → webhook: every message the emulator took reached the webhook (`lost`), extra
 * receipts only under the same delivery id (`duplicates` counts those under another one;
 * `redeliveries` the allowed ones), each chat's messages in the order sent (`outOfOrder`: messages
 * whose first arrival came before an earlier message of their chat), for the right session.
 */
export function inboundVerdict(sent, received) {
  let delivered = 0;
  let duplicates = 0;
  let redeliveries = 0;
  let misrouted = 0;
  const outOfOrder = [];
  const lost = [];
  const latestArrival = new Map();
  for (const message of [...sent].sort((a, b) => a.chat.localeCompare(b.chat) || a.seq - b.seq)) {
    const receipts = received.get(message.id) ?? [];
    if (receipts.length === 0) {
      lost.push(message);
      continue;
    }
    delivered += 1;
    const deliveryIds = new Set(receipts.map((receipt) => receipt.deliveryId));
    duplicates += deliveryIds.size - 1;
    redeliveries += receipts.length - deliveryIds.size;
    misrouted += receipts.filter((receipt) => receipt.sessionId !== message.sessionId).length;
    const first = receipts[0];
    const latest = latestArrival.get(message.chat);
    // Arrived before an earlier message of its chat: names the latest-arriving earlier one.
    if (latest && first.arrival < latest.receipt.arrival)
      outOfOrder.push({
        ...message,
        arrivedAt: first.at,
        before: { ...latest.message, arrivedAt: latest.receipt.at },
      });
    if (!latest || first.arrival > latest.receipt.arrival)
      latestArrival.set(message.chat, { message, receipt: first });
  }
  return { sent: sent.length, delivered, lost, duplicates, redeliveries, misrouted, outOfOrder };
}

/**
 * Customer → contacts: every send answered either with an id the contact's phone decrypted, or
 * with an error and never decrypted. `silentlyDropped`: answered with an id nobody decrypted;
 * `answeredErrorButDelivered`: an error answer, yet the text arrived; `idMismatch`: the text
 * arrived under another id than the answer's; `unanswered`: no HTTP answer at all; `undecryptable`:
 * answered with an id, sent, but the contact's phone could not decrypt it (a Signal failure).
 */
export function customerVerdict(sends, networkReceived, networkFailures = []) {
  const undecryptableIds = new Set(networkFailures.map((failure) => failure.stanza?.attrs?.id));
  const byText = new Map();
  for (const message of networkReceived) {
    const text = textOf(message.message);
    if (text?.startsWith('customer ')) byText.set(text, [...(byText.get(text) ?? []), message]);
  }
  const verdict = {
    customerSends: sends.length,
    customerSendOk: 0,
    customerSendErrors: 0,
    customerSendErrorCodes: {},
    silentlyDropped: [],
    undecryptable: [],
    answeredErrorButDelivered: [],
    idMismatch: [],
    unanswered: [],
    decryptedTwice: 0,
  };
  for (const send of sends) {
    const arrived = byText.get(send.text) ?? [];
    if (new Set(arrived.map((message) => message.id)).size < arrived.length) verdict.decryptedTwice += 1;
    if (!send.answered) {
      verdict.unanswered.push(send.n);
    } else if (send.status === 200 && send.id) {
      verdict.customerSendOk += 1;
      if (arrived.length === 0 && undecryptableIds.has(send.id)) verdict.undecryptable.push(send.n);
      else if (arrived.length === 0) verdict.silentlyDropped.push(send.n);
      else if (!arrived.some((message) => message.id === send.id)) verdict.idMismatch.push(send.n);
    } else {
      verdict.customerSendErrors += 1;
      const code = `${send.status} ${send.code ?? ''}`.trim();
      verdict.customerSendErrorCodes[code] = (verdict.customerSendErrorCodes[code] ?? 0) + 1;
      if (arrived.length > 0) verdict.answeredErrorButDelivered.push(send.n);
    }
  }
  return verdict;
}

/** Whether the customer's sends that were answered with an id have all been decrypted. */
export function customerSettled(sends, networkReceived) {
  const ids = new Set(networkReceived.map((message) => message.id));
  return sends.every((send) => send.answeredAt && (send.status !== 200 || !send.id || ids.has(send.id)));
}
