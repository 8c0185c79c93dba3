// The customer's webhook endpoint during a chaos run: verifies every delivery's signature with
// libs/webhook-receiver (as a customer must), answers 200, and records each `message.received`
// with its delivery id and arrival order, so the verdict can tell losses, duplicates (same or
// another delivery id) and order per chat.
import { createServer } from 'node:http';

/**
 * Starts the receiver on 127.0.0.1; `verifyDelivery` is libs/webhook-receiver's (from the run's
 * build). Returns `{ url, setSecret, received, counts, close }`: `received` maps a message id to
 * its receipts `{ deliveryId, sessionId, chat, arrival }` in arrival order.
 */
export async function startWebhookRecorder(verifyDelivery) {
  let secret = null;
  let arrival = 0;
  const received = new Map();
  const counts = { deliveries: 0, badSignatures: 0, otherEvents: 0 };
  const record = (raw, headers) => {
    let verified;
    try {
      verified = verifyDelivery({ body: raw, headers, secret });
    } catch {
      counts.badSignatures += 1;
      return;
    }
    counts.deliveries += 1;
    const { payload } = verified;
    if (payload.event !== 'message.received') {
      counts.otherEvents += 1;
      return;
    }
    const message = payload.message ?? {};
    const receipts = received.get(message.id) ?? [];
    receipts.push({
      deliveryId: verified.deliveryId,
      sessionId: payload.sessionId,
      chat: message.chat,
      arrival: (arrival += 1),
      at: Date.now(),
    });
    received.set(message.id, receipts);
  };
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      record(Buffer.concat(chunks), request.headers);
      response.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    setSecret: (value) => {
      secret = value;
    },
    received,
    counts,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
