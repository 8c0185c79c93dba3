// The per-request work of "the stack's own limit", shared by its two servers (bare Fastify in
// stack-limit-server.mjs, NestJS in nest-limit-server.mjs): one Redis EVALSHA of a capped counter
// (like the quota hit) and one NATS request/reply to bench/bare-responder.mjs, nothing else.
import Redis from 'ioredis';
import { connect } from 'nats';

const HIT_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local hits = redis.call('HINCRBY', KEYS[1], 'apiHits', 1)
return {1, hits}
`;

/** Connects to BENCH_REDIS and BENCH_NATS; `counter` names this server's own counter key. */
export async function connectLimitRoundTrips(counter) {
  const counterKey = `${process.env.BENCH_KEY_PREFIX}/${counter}`;
  const redis = new Redis(process.env.BENCH_REDIS);
  redis.defineCommand('benchHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  await redis.hset(counterKey, 'apiHits', 0);
  await redis.pexpire(counterKey, 3_600_000);
  const nc = await connect({ servers: process.env.BENCH_NATS.replace(/^nats:\/\//, '') });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  return {
    /** The answer POST /messages/text gives, after the two round trips. */
    async send({ to, text }) {
      await redis.benchHit(counterKey);
      const command = {
        v: 2,
        type: 'message.send',
        accountId: 'bench',
        sessionId: 'default',
        message: { kind: 'text', to, text },
      };
      const reply = await nc.request(process.env.BENCH_SUBJECT, encoder.encode(JSON.stringify(command)), {
        timeout: 10_000,
      });
      const { result } = JSON.parse(decoder.decode(reply.data));
      return { message: 'Message sent', data: result };
    },
    async close() {
      await nc.drain();
      await redis.del(counterKey);
    },
  };
}

/** On SIGTERM (how the bench stops its servers): the server, then the round trips, then exit. */
export function stopOnSigterm(app, roundTrips) {
  process.on(
    'SIGTERM',
    () =>
      void app
        .close()
        .then(() => roundTrips.close())
        .then(() => process.exit(0)),
  );
}
