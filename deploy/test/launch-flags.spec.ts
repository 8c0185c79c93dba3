import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deployDir } from './kustomize';

const root = join(deployDir, '..');
const entrypoint = join(deployDir, 'docker-entrypoint.sh');
const YOUNG_GENERATION = /--max-semi-space-size=(\d+)/;

/** What the entrypoint execs for `args`: a `node` on PATH that prints its arguments stands in. */
function launched(args: string[], env: Record<string, string> = {}): string {
  const bin = mkdtempSync(join(tmpdir(), 'jumbe-entrypoint-'));
  try {
    writeFileSync(join(bin, 'node'), '#!/bin/sh\necho "node $*"\n');
    chmodSync(join(bin, 'node'), 0o755);
    return execFileSync('sh', [entrypoint, ...args], {
      env: { PATH: `${bin}:${process.env.PATH}`, ...env },
      encoding: 'utf8',
    }).trim();
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

/** The semi-space size (MB) a command line or script sets, or null. */
function semiSpaceOf(text: string): string | null {
  return YOUNG_GENERATION.exec(text)?.[1] ?? null;
}

describe('launch flags of the services (the V8 young generation)', () => {
  const chosen = semiSpaceOf(launched(['gateway']));

  it('starts the gateway and the all-in-one with a larger young generation, the rest with V8 defaults', () => {
    expect(chosen).not.toBeNull();
    expect(launched(['gateway', '--inspect'])).toBe(
      `node --max-semi-space-size=${chosen} dist/apps/gateway/src/main.js --inspect`,
    );
    expect(launched(['all-in-one'])).toBe(
      `node --max-semi-space-size=${chosen} dist/apps/all-in-one/src/main.js`,
    );
    expect(launched([])).toBe(`node --max-semi-space-size=${chosen} dist/apps/gateway/src/main.js`);
    expect(launched(['session-worker'])).toBe('node dist/apps/session-worker/src/main.js');
    expect(launched(['webhook-dispatcher'])).toBe('node dist/apps/webhook-dispatcher/src/main.js');
    expect(launched(['jumbe', 'migrate'])).toBe('node dist/apps/cli/src/main.js migrate');
  });

  it("leaves the young generation to the operator's NODE_OPTIONS when it names one", () => {
    expect(launched(['gateway'], { NODE_OPTIONS: '--max-semi-space-size=8' })).toBe(
      'node dist/apps/gateway/src/main.js',
    );
    expect(launched(['gateway'], { NODE_OPTIONS: '--max-old-space-size=400' })).toBe(
      `node --max-semi-space-size=${chosen} dist/apps/gateway/src/main.js`,
    );
  });

  it('is the same in the npm start scripts and in the benchmarks as in the image', () => {
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(semiSpaceOf(scripts['start'] ?? '')).toBe(chosen);
    expect(semiSpaceOf(scripts['start:gateway'] ?? '')).toBe(chosen);
    expect(semiSpaceOf(scripts['start:worker'] ?? '')).toBeNull();
    expect(semiSpaceOf(scripts['start:dispatcher'] ?? '')).toBeNull();
    const bench = readFileSync(join(root, 'bench', 'support', 'services.mjs'), 'utf8');
    const flags = /SERVICE_NODE_FLAGS = \{([\s\S]*?)\n\};/.exec(bench)?.[1] ?? '';
    expect(semiSpaceOf(/gateway: \[([^\]]*)\]/.exec(flags)?.[1] ?? '')).toBe(chosen);
    expect(semiSpaceOf(/'all-in-one': \[([^\]]*)\]/.exec(flags)?.[1] ?? '')).toBe(chosen);
  });
});
