// Preloaded (`node --require`) into the delivering process by `npm run bench inbound`: how late its
// event loop runs. A 100 ms timer measures how much later than due it fires; once a second the
// mean and the worst are logged as one JSON line. A loop that is late while the process uses
// little CPU is a process waiting to be scheduled (a busy machine), not one short of work.
const INTERVAL_MS = 100;
let due = performance.now() + INTERVAL_MS;
let late = [];
setInterval(() => {
  const now = performance.now();
  late.push(Math.max(0, now - due));
  due = now + INTERVAL_MS;
}, INTERVAL_MS).unref();
setInterval(() => {
  if (late.length === 0) return;
  const meanMs = late.reduce((sum, ms) => sum + ms, 0) / late.length;
  const maxMs = Math.max(...late);
  late = [];
  process.stderr.write(`${JSON.stringify({ msg: 'bench loop lag', at: Date.now(), meanMs, maxMs })}\n`);
}, 1_000).unref();
