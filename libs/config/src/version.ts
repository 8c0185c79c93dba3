import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The product version from the root package.json, found by walking up (works from src/ and dist/). */
export function productVersion(): string {
  let dir = __dirname;
  for (let depth = 0; depth < 8; depth += 1) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'jumbe' && manifest.version) return manifest.version;
    } catch {
      // not here; keep walking up
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}
