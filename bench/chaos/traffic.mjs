// The traffic of a chaos run: emulated contacts writing to the linked sessions (texts, images,
// group messages) and the customer sending texts through the HTTP API, both for as long as the
// run lasts, every message recorded so the verdict can check where it went.
import { pause } from '../support/services.mjs';

/** How long the customer's HTTP client waits for an answer (the gateway answers 504 long before). */
const SEND_TIMEOUT_MS = 120_000;
/** Customer sends in flight at most (a slow gateway is not flooded by the run itself). */
const MAX_IN_FLIGHT = 6;
/**
 * Tries of one send whose outcome stayed unknown (504, or no answer at all), each under the same
 * Idempotency-Key, as the README tells customers to retry; the last try's answer is the send's.
 */
const UNKNOWN_OUTCOME_TRIES = 3;
const RETRY_PAUSE_MS = 2_000;

/**
 * The contacts write, one message at a time (each awaited, so each chat's order is the order
 * they were sent), every `intervalMs`, until `stop()`. Awaited means the server took it (the
 * emulator handed it to the device's connection or queued it for its next login), not that the
 * device received, decrypted or acknowledged it: the order kept is the server's, as WhatsApp
 * delivers a chat's messages, and a copy the device asks for again keeps its place in it. Each message carries `chaos <chat> <seq>`;
 * `sent` records `{ id, sessionId, chat, seq, kind, at }` for every message the emulator took.
 */
export function startContactTraffic({ network, sessions, draw, intervalMs }) {
  const sent = [];
  const errors = [];
  const seqs = new Map();
  let running = true;
  const loop = (async () => {
    while (running) {
      const session = draw.pick(sessions);
      const kind = draw.pick(['text', 'text', 'text', 'image', 'group']);
      const from = draw.pick(session.contacts);
      const chat = kind === 'group' ? session.group.jid : from.jid;
      const key = `${session.sessionId}|${chat}`;
      const seq = (seqs.get(key) ?? 0) + 1;
      const text = `chaos ${chat} ${seq}`;
      try {
        let id;
        if (kind === 'group')
          id = await network.sendGroupMessage(from, chat, session.phone, { conversation: text });
        else if (kind === 'image')
          id = await network.sendMessage(from, session.phone, {
            imageMessage: { mimetype: 'image/jpeg', caption: text, fileLength: 2048 },
          });
        else id = await network.sendMessage(from, session.phone, { conversation: text });
        seqs.set(key, seq);
        sent.push({ id, sessionId: session.sessionId, chat: key, seq, kind, at: Date.now() });
      } catch (error) {
        errors.push(String(error?.message ?? error));
      }
      await pause(intervalMs);
    }
  })();
  return {
    sent,
    errors,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/**
 * The customer sends a text to one of a session's contacts every `intervalMs` (at most
 * MAX_IN_FLIGHT waiting), until `stop()`, which waits for every answer. Each send has its own
 * Idempotency-Key and is tried again under it while its outcome is unknown. `sends` records
 * `{ n, sessionId, to, text, status, id, code, answered, tries }`.
 */
export function startCustomerTraffic({ gatewayUrl, key, sessions, draw, intervalMs }) {
  const sends = [];
  const inFlight = new Set();
  let running = true;
  const sendOne = async (record) => {
    for (record.tries = 1; ; record.tries += 1) {
      await tryOnce(record);
      const unknown = !record.answered || record.status === 504;
      if (!unknown || record.tries >= UNKNOWN_OUTCOME_TRIES) break;
      await pause(RETRY_PAUSE_MS);
    }
  };
  const tryOnce = async (record) => {
    try {
      const response = await fetch(`${gatewayUrl()}/api/v1/messages/text`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': key,
          'idempotency-key': `chaos-${record.n}-${record.sessionId}`,
        },
        body: JSON.stringify({ sessionId: record.sessionId, to: record.to, text: record.text }),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      const body = await response.json().catch(() => null);
      record.status = response.status;
      record.id = response.status === 200 ? (body?.data?.key?.id ?? null) : null;
      record.code = body?.error?.code ?? null;
      record.answered = true;
    } catch (error) {
      record.answered = false;
      record.code = String(error?.name ?? error);
    }
    record.answeredAt = Date.now();
  };
  const loop = (async () => {
    for (let n = 1; running; n += 1) {
      while (inFlight.size >= MAX_IN_FLIGHT && running) await pause(100);
      if (!running) break;
      const session = draw.pick(sessions);
      const to = draw.pick(session.contacts);
      const record = {
        n,
        sessionId: session.sessionId,
        to: to.phoneNumber,
        text: `customer ${n} ${session.sessionId}`,
        at: Date.now(),
      };
      sends.push(record);
      const pending = sendOne(record).finally(() => inFlight.delete(pending));
      inFlight.add(pending);
      await pause(intervalMs);
    }
  })();
  return {
    sends,
    async stop() {
      running = false;
      await loop;
      await Promise.all([...inFlight]);
    },
  };
}
