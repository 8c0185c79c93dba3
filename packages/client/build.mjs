// Builds the package into dist/ (npm runs it on `npm pack` and on `npm install <this folder>`):
// the webhook verifier of libs/webhook-receiver compiled into dist/webhook-receiver, then this
// package's sources, whose `@jumbe/webhook-receiver` imports are pointed at that copy, so the
// package stands alone. Needs the repository's dev dependencies (`npm install` at its root).
import { execFileSync } from 'node:child_process';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compile = (...args) => execFileSync(process.execPath, [tsc, ...args], { stdio: 'inherit', cwd: here });

await rm(dist, { recursive: true, force: true });
compile(
  '-p',
  join(here, '../../libs/webhook-receiver/tsconfig.lib.json'),
  '--outDir',
  join(dist, 'webhook-receiver'),
);
compile('-p', join(here, 'tsconfig.lib.json'));
for (const name of await readdir(dist)) {
  if (!/\.(js|d\.ts)$/.test(name)) continue;
  const file = join(dist, name);
  const source = await readFile(file, 'utf8');
  await writeFile(file, source.replace(/(["'])@jumbe\/webhook-receiver\1/g, '$1./webhook-receiver$1'));
}
