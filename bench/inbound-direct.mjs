// The dispatcher alone, for `npm run bench inbound`: events published straight into the
// deployment's JetStream stream (distributed topology), built by the same code the session worker
// runs (the sandbox's contact message, inboundMessageEvent, the stream's subject and event id), so
// the dispatcher sees exactly what an injected message would give it, without the gateway, the
// session worker and the sandbox network in front of it.
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JSONCodec } from 'nats';
import { now, paced } from './support/paced.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const load = createRequire(import.meta.url);
const { shardOf } = load(join(root, 'dist/libs/domain/src/index.js'));
const { inboundEventId, inboundEventSubject, inboundMessageEvent } = load(
  join(root, 'dist/libs/contracts/src/index.js'),
);
const { contactMessageToInbound } = load(join(root, 'dist/libs/network/src/index.js'));
const codec = JSONCodec();

/** One stream event as the session worker's InboundRelay publishes it for a contact's text. */
function streamEvent(accountId, sessionId, text) {
  const at = new Date();
  // Sent a moment before the relay stamps the event, in whole seconds as WhatsApp's own times are.
  const sentAt = new Date(Math.floor(at.getTime() / 1000) * 1000);
  const message = contactMessageToInbound({ from: '254722000001', text }, sentAt);
  return {
    subject: inboundEventSubject(shardOf(accountId, sessionId), accountId, sessionId),
    eventId: inboundEventId(accountId, sessionId, message.id),
    payload: inboundMessageEvent(accountId, sessionId, message, at),
  };
}

/**
 * Publishes `rate` events a second (Infinity: as fast as `maxInFlight` publishes allow) for
 * `durationS` (at most `limit`), round-robin over the sessions, each text "<phase> <seq> <published at>"; resolves
 * once JetStream stored them all.
 */
export async function publishDirect({
  stream,
  accountId,
  sessionIds,
  phase,
  rate,
  durationS,
  maxInFlight = 256,
  limit,
}) {
  const jetstream = stream.nats.jetstream();
  return paced({
    rate,
    durationS,
    maxInFlight,
    limit,
    send: (seq) => {
      const event = streamEvent(accountId, sessionIds[seq % sessionIds.length], `${phase} ${seq} ${now()}`);
      return jetstream
        .publish(`${stream.namespace}${event.subject}`, codec.encode(event.payload), { msgID: event.eventId })
        .then(
          () => null,
          (error) => error.message,
        );
    },
  });
}
