import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');

describe('@jumbe/webhook-receiver as a standalone package', () => {
  it('has no dependencies and publishes only its build output', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('@jumbe/webhook-receiver');
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
    expect(pkg.files).toEqual(['dist']);
    expect(pkg.main).toBe('dist/index.js');
    expect(pkg.types).toBe('dist/index.d.ts');
  });

  it('its sources import node:crypto and each other only', () => {
    for (const file of readdirSync(join(root, 'src')).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'),
    )) {
      const source = readFileSync(join(root, 'src', file), 'utf8');
      const imports = [...source.matchAll(/(?:from|require\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
      for (const specifier of imports)
        expect([file, specifier]).toEqual([file, expect.stringMatching(/^(node:crypto|\.\/.+)$/)]);
    }
  });
});
