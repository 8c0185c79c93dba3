#!/usr/bin/env node
// `npm run mutation [lib…]`: StrykerJS over the libs that guard tenants, money and messages, one
// lib at a time (each with its own config in tools/mutation/), then each lib's mutation score.
// On demand, not in CI: a full run takes hours on a small machine. Reports land in
// reports/mutation/<lib>.html; a re-run only retests what changed (Stryker's incremental mode).
// PostgreSQL, Redis and NATS must be running, as for the unit tests.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const configDir = join(root, 'tools', 'mutation');
const known = readdirSync(configDir)
  .filter((name) => name.endsWith('.stryker.mjs'))
  .map((name) => name.slice(0, -'.stryker.mjs'.length))
  .sort();

const asked = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
// Options go to Stryker as they are, e.g. `--force`: incremental mode reuses the result of a
// static mutant (a module-level constant) even when a new test would now kill it.
const strykerOptions = process.argv.slice(2).filter((arg) => arg.startsWith('-'));
const unknown = asked.filter((lib) => !known.includes(lib));
if (unknown.length > 0) {
  console.error(`No mutation config for: ${unknown.join(', ')}. Known: ${known.join(', ')}`);
  process.exit(2);
}
/** Configs that mutate a part of another one's files: run only when asked for by name. */
const SUBSETS = new Set(['ownership', 'gateway-metering', 'gateway-auth']);
const libs = asked.length > 0 ? asked : known.filter((name) => !SUBSETS.has(name));

/** Mutation score as Stryker computes it: detected / (detected + undetected), errors excluded. */
function score(lib) {
  const file = join(root, 'reports', 'mutation', `${lib}.json`);
  if (!existsSync(file)) return null;
  const counts = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0 };
  for (const { mutants } of Object.values(JSON.parse(readFileSync(file, 'utf8')).files)) {
    for (const { status } of mutants) if (status in counts) counts[status] += 1;
  }
  const detected = counts.Killed + counts.Timeout;
  const total = detected + counts.Survived + counts.NoCoverage;
  return { ...counts, percent: total === 0 ? 100 : (100 * detected) / total };
}

const results = [];
for (const lib of libs) {
  console.log(`\n=== mutation testing: ${lib} ===`);
  const run = spawnSync(
    'npx',
    ['stryker', 'run', join('tools', 'mutation', `${lib}.stryker.mjs`), ...strykerOptions],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    },
  );
  results.push({ lib, ok: run.status === 0, score: run.status === 0 ? score(lib) : null });
}

console.log('\n=== mutation scores ===');
for (const { lib, ok, score: s } of results) {
  console.log(
    ok && s
      ? `${lib.padEnd(20)} ${s.percent.toFixed(1).padStart(5)} %  (killed ${s.Killed}, timeout ${s.Timeout}, survived ${s.Survived}, no coverage ${s.NoCoverage})`
      : `${lib.padEnd(20)} failed to run`,
  );
}
process.exit(results.every((r) => r.ok) ? 0 : 1);
