// The scrapers of `npm run bench metrics`, run as their own process so their CPU is not the
// server's: autocannon GETs one URL on `connections` connections until SIGTERM.
// Input (argv[2], JSON): { url, connections, headers }; output: one JSON line when stopped.
import autocannon from 'autocannon';

const spec = JSON.parse(process.argv[2]);
const instance = autocannon(
  { url: spec.url, method: 'GET', connections: spec.connections, duration: 3_600, headers: spec.headers },
  (error, result) => {
    if (error) throw error;
    process.stdout.write(
      `${JSON.stringify({
        scrapesPerSecond: result.requests.total / (result.duration || 1),
        total: result.requests.total,
        ok: result['2xx'],
        non2xx: result.non2xx,
        errors: result.errors,
        bytesPerScrape: result.requests.total ? result.throughput.total / result.requests.total : 0,
      })}\n`,
    );
  },
);
process.once('SIGTERM', () => instance.stop());
