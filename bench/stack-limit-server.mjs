// "The stack's own limit": a bare Fastify server that, per request, does the round trips the
// distributed send path cannot avoid — one Redis EVALSHA (a capped counter, like the quota hit)
// and one NATS request/reply to a bare responder in another process — and nothing else (no auth,
// validation, metrics or logging). What Jumbe's distributed path adds beyond it is ours to cut.
import Fastify from 'fastify';
import Redis from 'ioredis';
import { connect } from 'nats';

const HIT_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local hits = redis.call('HINCRBY', KEYS[1], 'apiHits', 1)
return {1, hits}
`;
const counterKey = `${process.env.BENCH_KEY_PREFIX}/limit-counter`;
const redis = new Redis(process.env.BENCH_REDIS);
redis.defineCommand('benchHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
await redis.hset(counterKey, 'apiHits', 0);
await redis.pexpire(counterKey, 3_600_000);
const nc = await connect({ servers: process.env.BENCH_NATS.replace(/^nats:\/\//, '') });
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const app = Fastify({ logger: false });
app.post('/api/v1/messages/text', async (request) => {
  const { to, text } = request.body;
  await redis.benchHit(counterKey);
  const command = {
    v: 1,
    type: 'message.send',
    accountId: 'bench',
    sessionId: 'default',
    message: { kind: 'text', body: { to, text } },
  };
  const reply = await nc.request(process.env.BENCH_SUBJECT, encoder.encode(JSON.stringify(command)), {
    timeout: 10_000,
  });
  const { result } = JSON.parse(decoder.decode(reply.data));
  return { message: 'Message sent', data: result };
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ msg: 'stack limit listening', url: address })}\n`);
process.on(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => nc.drain())
      .then(() => redis.del(counterKey))
      .then(() => process.exit(0)),
);
