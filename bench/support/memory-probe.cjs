// Preloaded into a service by the sessions bench (`node --expose-gc --require …`): on SIGUSR2 it
// collects garbage until the heap stops shrinking, then writes one line
// `{"memoryProbe":{rss,heapUsed,heapTotal,external,arrayBuffers}}` (bytes) to stderr. Nothing of
// it is in the product: the bench reads the worker from outside, as an operator's tools would.
'use strict';

process.on('SIGUSR2', () => {
  let previous = Infinity;
  for (let round = 0; round < 10; round += 1) {
    global.gc?.();
    const { heapUsed } = process.memoryUsage();
    if (heapUsed >= previous * 0.999) break;
    previous = heapUsed;
  }
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  process.stderr.write(
    `${JSON.stringify({ memoryProbe: { rss, heapUsed, heapTotal, external, arrayBuffers } })}\n`,
  );
});
