// Compiles every app and lib (TypeScript, decorators with metadata) into dist/ with SWC,
// rewriting the @jumbe/* path aliases of tsconfig.base.json into relative requires so the
// output runs on plain Node. Type checking is a separate step (`npm run typecheck`).
// `--if-stale` skips the build when dist/ is newer than every source file (used by `npm start`).
import { transformFile } from '@swc/core';
import { copyFile, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'dist');
const stamp = join(outDir, '.build-stamp');
const dashboardDir = join(root, 'apps', 'dashboard');

async function* sources(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') yield* sources(path);
    } else if (
      (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts')) ||
      // Plain CommonJS that runs as is (a worker thread's entry, started by path): copied, not compiled.
      entry.name.endsWith('.cjs')
    ) {
      yield path;
    }
  }
}

async function listSources() {
  const files = [];
  for (const top of ['apps', 'libs']) {
    for (const project of await readdir(join(root, top))) {
      // The dashboard is a browser bundle, built by Vite below, not a Node program.
      if (top === 'apps' && project === 'dashboard') continue;
      const src = join(root, top, project, 'src');
      try {
        for await (const file of sources(src)) files.push(file);
      } catch (error) {
        if (error.code !== 'ENOENT') throw error;
      }
    }
  }
  return files;
}

/** Every input of the dashboard's bundle (sources, styles, page, Vite config). */
async function dashboardInputs() {
  const files = [];
  const walk = async (dir) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else files.push(path);
    }
  };
  await walk(dashboardDir);
  return files;
}

/** Bundles the dashboard into dist/dashboard (hashed assets) for the gateway to serve. */
async function buildDashboard() {
  const { build } = await import('vite');
  await build({ configFile: join(dashboardDir, 'vite.config.mts'), logLevel: 'warn' });
}

async function isStale(files) {
  let built;
  try {
    built = (await stat(stamp)).mtimeMs;
  } catch {
    return true;
  }
  const inputs = [...files, join(root, 'tsconfig.base.json'), join(root, 'package-lock.json')];
  for (const file of inputs) {
    if ((await stat(file)).mtimeMs > built) return true;
  }
  return false;
}

async function main() {
  const files = await listSources();
  if (process.argv.includes('--if-stale') && !(await isStale([...files, ...(await dashboardInputs())])))
    return;
  const tsconfig = JSON.parse(await readFile(join(root, 'tsconfig.base.json'), 'utf8'));
  const options = {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
      baseUrl: root,
      paths: tsconfig.compilerOptions.paths,
    },
    module: { type: 'commonjs' },
    sourceMaps: true,
  };
  const started = Date.now();
  await Promise.all(
    files.map(async (file) => {
      if (file.endsWith('.cjs')) {
        const copy = join(outDir, relative(root, file));
        await mkdir(dirname(copy), { recursive: true });
        await copyFile(file, copy);
        return;
      }
      const target = join(outDir, relative(root, file)).replace(/\.ts$/, '.js');
      const output = await transformFile(file, { ...options, filename: file, outputPath: target });
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, `${output.code}\n//# sourceMappingURL=${target.split('/').pop()}.map\n`);
      if (output.map) await writeFile(`${target}.map`, output.map);
    }),
  );
  // The typed client (packages/client) follows the compiled OpenAPI document: its generated types
  // and Postman collection are rewritten when the document changed.
  const { writeClientArtifacts } = await import('./openapi-client.mjs');
  const regenerated = await writeClientArtifacts();
  if (regenerated.length) process.stderr.write(`regenerated ${regenerated.join(', ')}\n`);
  await buildDashboard();
  await mkdir(outDir, { recursive: true });
  await writeFile(stamp, new Date().toISOString());
  process.stderr.write(`built ${files.length} files into dist/ in ${Date.now() - started} ms\n`);
}

main().catch((error) => {
  process.stderr.write(`build failed: ${error.stack ?? error}\n`);
  process.exit(1);
});
