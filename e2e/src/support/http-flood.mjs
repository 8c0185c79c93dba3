// A closed-loop HTTP load in a process of its own (so its CPU is not the test's): autocannon GETs
// one URL on `connections` keep-alive connections until SIGTERM, then prints one JSON line.
// Input (argv[2], JSON): { url, connections, headers }.
import autocannon from 'autocannon';

const spec = JSON.parse(process.argv[2]);
const instance = autocannon(
  { url: spec.url, method: 'GET', connections: spec.connections, duration: 3_600, headers: spec.headers },
  (error, result) => {
    if (error) throw error;
    const statuses = Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]),
    );
    process.stdout.write(`${JSON.stringify({ requests: result.requests.total, statuses })}\n`);
  },
);
// Started: the parent waits for this line before it measures.
instance.once('start', () => process.stdout.write('started\n'));
process.once('SIGTERM', () => instance.stop());
