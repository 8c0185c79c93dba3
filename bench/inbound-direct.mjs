// The dispatcher alone, for `npm run bench inbound`: events published straight into the
// deployment's JetStream stream (distributed topology), built by the same code the session worker
// runs (the sandbox's contact message, normaliseInbound, the stream's subject and event id), so
// the dispatcher sees exactly what an injected message would give it, without the gateway, the
// session worker and the sandbox network in front of it.
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JSONCodec } from 'nats';
import { now } from './inbound-load.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const load = createRequire(import.meta.url);
const { normaliseInbound, shardOf } = load(join(root, 'dist/libs/domain/src/index.js'));
const { inboundEventId, inboundEventSubject } = load(join(root, 'dist/libs/contracts/src/index.js'));
const { contactMessageToInbound } = load(join(root, 'dist/libs/network/src/index.js'));
const codec = JSONCodec();

/** One stream event as the session worker's InboundRelay publishes it for a contact's text. */
function streamEvent(accountId, sessionId, text) {
  const at = new Date();
  const message = contactMessageToInbound({ from: '254722000001', text }, at);
  return {
    subject: inboundEventSubject(shardOf(accountId, sessionId), accountId, sessionId),
    eventId: inboundEventId(accountId, sessionId, message.id),
    payload: normaliseInbound(accountId, sessionId, message, at),
  };
}

/**
 * Publishes `rate` events a second (Infinity: as fast as `maxInFlight` publishes allow) for
 * `durationS`, round-robin over the sessions, each text "<phase> <seq> <published at>"; resolves
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
}) {
  const jetstream = stream.nats.jetstream();
  const started = now();
  const endsAt = started + durationS * 1000;
  const total = Number.isFinite(rate) ? Math.round(rate * durationS) : Infinity;
  let launched = 0;
  let inFlight = 0;
  let accepted = 0;
  const refused = {};
  await new Promise((resolve) => {
    const finishIfDone = () => {
      if ((launched >= total || now() >= endsAt) && inFlight === 0) resolve();
    };
    const launch = (seq) => {
      inFlight += 1;
      const event = streamEvent(accountId, sessionIds[seq % sessionIds.length], `${phase} ${seq} ${now()}`);
      jetstream
        .publish(`${stream.namespace}${event.subject}`, codec.encode(event.payload), { msgID: event.eventId })
        .then(
          () => (accepted += 1),
          (error) => (refused[error.message] = (refused[error.message] ?? 0) + 1),
        )
        .finally(() => {
          inFlight -= 1;
          if (!Number.isFinite(rate)) tick();
          finishIfDone();
        });
    };
    const tick = () => {
      const at = now();
      if (at >= endsAt || launched >= total) return finishIfDone();
      const due = Number.isFinite(rate)
        ? Math.min(total, Math.floor(((at - started) * rate) / 1000) + 1)
        : Infinity;
      while (launched < due && inFlight < maxInFlight) launch(launched++);
      if (Number.isFinite(rate)) setTimeout(tick, 1);
    };
    tick();
  });
  return { accepted, refused, seconds: (now() - started) / 1000 };
}
