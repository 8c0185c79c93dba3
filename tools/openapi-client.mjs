// Regenerates the typed client's types and the Postman collection from the OpenAPI document, as
// the compiled gateway (dist/) builds it: `node tools/openapi-client.mjs` writes them (tools/build.mjs
// calls it after compiling), `--check` only reports drift (exit 1). The sandbox network's document
// is used: it is every other network's plus the sandbox's own routes.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the build remembers what it last generated from, to skip the generation (seconds) when nothing changed. */
const stampFile = join(root, 'dist/.openapi-client-stamp');
const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** Writes (or with `check`, compares) every client artifact; returns the paths that differed. */
export async function writeClientArtifacts({ check = false } = {}) {
  const { buildOpenApiDocument } = require(join(root, 'dist/libs/gateway/src/openapi/openapi-document.js'));
  const { ARTIFACT_PATHS, clientArtifacts } = require('./openapi-client-artifacts.cjs');
  const document = buildOpenApiDocument('client', 'sandbox');
  const current = async (path) => readFile(join(root, path), 'utf8').catch(() => null);
  const inputs = async () =>
    sha256(
      JSON.stringify(document) +
        (await readFile(join(root, 'tools/openapi-client-artifacts.cjs'), 'utf8')) +
        (await Promise.all(Object.values(ARTIFACT_PATHS).map(current))).join('\0'),
    );
  if (!check && (await readFile(stampFile, 'utf8').catch(() => null)) === (await inputs())) return [];
  const artifacts = await clientArtifacts(document);
  const changed = [];
  for (const [path, content] of Object.entries(artifacts)) {
    if ((await current(path)) === content) continue;
    changed.push(path);
    if (!check) await writeFile(join(root, path), content);
  }
  if (!check) await writeFile(stampFile, await inputs());
  return changed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  writeClientArtifacts({ check })
    .then((changed) => {
      if (changed.length === 0) return;
      process.stderr.write(`${check ? 'out of date' : 'regenerated'}: ${changed.join(', ')}\n`);
      if (check) process.exitCode = 1;
    })
    .catch((error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exitCode = 1;
    });
}
