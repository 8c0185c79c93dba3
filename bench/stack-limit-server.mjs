// "The stack's own limit": a bare Fastify server that, per request, does the round trips the
// distributed send path cannot avoid — one Redis EVALSHA (a capped counter, like the quota hit)
// and one NATS request/reply to a bare responder in another process — and nothing else (no auth,
// validation, metrics or logging). What Jumbe's distributed path adds beyond it is ours to cut.
import Fastify from 'fastify';
import { connectLimitRoundTrips, stopOnSigterm } from './support/limit-round-trips.mjs';

const roundTrips = await connectLimitRoundTrips('limit-counter');
const app = Fastify({ logger: false });
app.post('/api/v1/messages/text', (request) => roundTrips.send(request.body));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ msg: 'stack limit listening', url: address })}\n`);
stopOnSigterm(app, roundTrips);
