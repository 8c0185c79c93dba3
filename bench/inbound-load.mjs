// The load side of `npm run bench inbound`: injecting sandbox messages at a fixed rate, and the
// bare-client baseline (signed events POSTed straight to the same receiver).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { now, paced } from './support/paced.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { signWebhook } = createRequire(import.meta.url)(join(root, 'dist/libs/domain/src/index.js'));

/** A JSON POST over a keep-alive agent; resolves with the status (0 when the request failed). */
export function post(agent, url, body, headers = {}) {
  return new Promise((resolve) => {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...headers,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      },
    );
    request.on('error', () => resolve(0));
    request.end(payload);
  });
}

/**
 * Injects `rate` messages a second (Infinity: as fast as `maxInFlight` requests allow) for
 * `durationS`, round-robin over the sessions, each text "<phase> <seq> <injected at>".
 */
export async function inject({ gateway, key, sessionIds, phase, rate, durationS, maxInFlight = 256 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: maxInFlight });
  const url = `${gateway}/api/v1/sandbox/inbound`;
  const headers = { 'x-api-key': key };
  const result = await paced({
    rate,
    durationS,
    maxInFlight,
    send: async (seq) => {
      const body = {
        sessionId: sessionIds[seq % sessionIds.length],
        from: '254722000001',
        text: `${phase} ${seq} ${now()}`,
      };
      const status = await post(agent, url, body, headers);
      return status === 200 ? null : status;
    },
  });
  agent.destroy();
  return result;
}

/**
 * The same kind of signed event the dispatcher sends, POSTed to the receiver by `parallel` loops,
 * over kept-alive connections (or, `keepAlive: false`, a new connection per request, as the
 * dispatcher does).
 */
export async function bareClient({ receiver, secret, phase, durationS, parallel = 20, keepAlive = true }) {
  const agent = new http.Agent({ keepAlive, maxSockets: parallel });
  const customerId = randomUUID();
  const started = now();
  let seq = 0;
  let sent = 0;
  await Promise.all(
    Array.from({ length: parallel }, async (_, lane) => {
      while (now() - started < durationS * 1000) {
        const deliveryId = randomUUID();
        const timestamp = new Date();
        const n = seq++;
        const body = JSON.stringify({
          event: 'message.received',
          deliveryId,
          timestamp: timestamp.toISOString(),
          customerId,
          sessionId: `line${lane}`,
          message: { id: `BENCH${n}`, from: '254722000001', text: `${phase} ${n} ${now()}`, type: 'text' },
        });
        const headers = {
          'user-agent': 'Jumbe-Webhooks/1',
          'x-service-event': 'message.received',
          'x-service-delivery': deliveryId,
          ...signWebhook({ secret, deliveryId, timestamp, body }),
        };
        if ((await post(agent, `${receiver}/hook`, body, headers)) === 200) sent += 1;
      }
    }),
  );
  agent.destroy();
  return { sent, perSecond: Math.round(sent / ((now() - started) / 1000)) };
}
