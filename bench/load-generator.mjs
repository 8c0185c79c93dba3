// The load generator, run as its own process so its CPU is not the server's: autocannon against
// the URLs of one target for a fixed time, the result as one JSON line on stdout.
// Input (argv[2], JSON): { urls, connections, durationS, headers, body, keys?, bodies? }. With
// `keys`, each connection sends with its own x-api-key, round-robin over them (many keys of one
// account); with `bodies`, each connection sends its own body (one session per connection, say).
import autocannon from 'autocannon';

const spec = JSON.parse(process.argv[2]);
let nextKey = 0;
let nextBody = 0;
const perConnection = spec.keys || spec.bodies;

const result = await autocannon({
  url: spec.urls,
  method: 'POST',
  connections: spec.connections,
  duration: spec.durationS,
  headers: spec.headers,
  body: spec.body,
  setupClient: perConnection
    ? (client) => {
        if (spec.keys)
          client.setHeaders({ ...spec.headers, 'x-api-key': spec.keys[nextKey++ % spec.keys.length] });
        if (spec.bodies) client.setBody(spec.bodies[nextBody++ % spec.bodies.length]);
      }
    : undefined,
});

const statuses = Object.fromEntries(
  Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]),
);
process.stdout.write(
  `${JSON.stringify({
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  })}\n`,
);
