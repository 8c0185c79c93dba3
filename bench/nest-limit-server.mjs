// The stack's limit on the product's framework: the same round trips as stack-limit-server.mjs
// (one Redis EVALSHA, one NATS request/reply to the bare responder), behind one NestJS 11
// controller on Fastify as in nest-baseline-server.mjs, and nothing else. Beside the limit it
// shows what the framework costs on the distributed path; beside Jumbe's gateway and worker, what
// Jumbe adds beyond the framework and the round trips its design needs.
import { connectLimitRoundTrips, stopOnSigterm } from './support/limit-round-trips.mjs';
import { serveSendOnNest } from './support/nest-send-app.mjs';

const roundTrips = await connectLimitRoundTrips('nest-limit-counter');
const app = await serveSendOnNest((body) => roundTrips.send(body), 'nest limit listening');
stopOnSigterm(app, roundTrips);
