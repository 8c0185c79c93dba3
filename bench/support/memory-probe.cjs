// Bench-only preload (`node --expose-gc --require bench/support/memory-probe.cjs ...`): on SIGUSR2
// the process collects garbage (when --expose-gc is on) and prints one JSON line with its memory,
// so a bench can read heap used after a forced GC from outside without changing the product.
process.on('SIGUSR2', () => {
  if (typeof global.gc === 'function') global.gc();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  process.stdout.write(
    `${JSON.stringify({ msg: 'memory probe', gc: typeof global.gc === 'function', rss, heapUsed, heapTotal, external, arrayBuffers })}\n`,
  );
});
