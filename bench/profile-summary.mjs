// `node bench/profile-summary.mjs <file.cpuprofile>...`: where a process spent its CPU, by owner
// (an npm package, a Jumbe lib, Node's internals, GC, idle) and by function (self time), so the top
// costs of a bench run can be named in BENCHMARKS.md. BENCH_TOP=<n> functions listed (default 25).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const TOP = Number(process.env.BENCH_TOP ?? 25);

/** Who a sampled frame belongs to: a package, a Jumbe lib or app, Node itself, or the VM. */
function ownerOf({ url, functionName }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1];
  const inJumbe = /dist\/(libs|apps)\/([^/]+)/.exec(url);
  if (inJumbe) return `jumbe:${inJumbe[2]}`;
  if (url.startsWith('node:')) return 'node';
  return basename(url);
}

function summarise(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const sampled = profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
  const msPerSample = totalMs / Math.max(1, sampled);
  const byOwner = new Map();
  const byFunction = new Map();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const owner = ownerOf(node.callFrame);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + hits);
    const where = node.callFrame.url
      ? `${basename(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`
      : '';
    const name = `${node.callFrame.functionName || '(anonymous)'} ${where} [${owner}]`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
  }
  const busy = sampled - (byOwner.get('(idle)') ?? 0);
  const rows = (map, limit) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, hits]) => ({
        name,
        'ms self': Math.round(hits * msPerSample),
        '% of busy': name === '(idle)' ? '' : ((100 * hits) / busy).toFixed(1),
      }));
  console.log(
    `\n${file}: ${(totalMs / 1000).toFixed(1)} s profiled, ${((100 * busy) / sampled).toFixed(0)}% busy`,
  );
  console.table(rows(byOwner, 20));
  console.table(rows(byFunction, TOP));
}

for (const file of process.argv.slice(2)) summarise(file);
