import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { deployDir } from './kustomize';

/**
 * Issue 31: `npm install` warned EBADENGINE (content-disposition 3 wants Node 22 while Jumbe says
 * `>=20.19` and the image runs Node 20), and after @fastify/static was pinned to 9 a fresh clone's
 * `npm install` failed with ERESOLVE (an optional peer range of NestJS's Fastify adapter). These
 * are the checks npm makes, run on package.json, package-lock.json and the Dockerfile, so a
 * dependency change that breaks a newcomer's first command fails here first.
 */

interface LockedPackage {
  name?: string;
  version?: string;
  link?: boolean;
  engines?: Record<string, string> | string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

type Overrides = Record<string, string | Record<string, unknown>>;

const root = join(deployDir, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  overrides?: Overrides;
};
const locked = (
  JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockedPackage>;
  }
).packages;

/** The oldest Node the project says it runs on (`engines.node` in package.json). */
function oldestSupportedNode(): semver.SemVer {
  const oldest = semver.minVersion(manifest.engines.node);
  if (!oldest) throw new Error(`package.json engines.node "${manifest.engines.node}" admits no version`);
  return oldest;
}

/** The package at `path` (`node_modules/a/node_modules/b`) is named after its last segment(s). */
function nameAt(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  return path.slice(at + 'node_modules/'.length);
}

/** Where Node would find `name` from the package at `path`: the nearest node_modules up the tree. */
function resolve(path: string, name: string): LockedPackage | undefined {
  let from = path;
  for (;;) {
    const found = locked[from === '' ? `node_modules/${name}` : `${from}/node_modules/${name}`];
    if (found) return found;
    if (from === '') return undefined;
    const parent = from.lastIndexOf('/node_modules/');
    from = parent === -1 ? '' : from.slice(0, parent);
  }
}

/** Whether package.json's `overrides` replace `name` everywhere, or where `dependent` asks for it. */
function overridden(dependent: string, name: string): boolean {
  const overrides = manifest.overrides ?? {};
  const names = (scope: Overrides) =>
    Object.keys(scope).some((key) => key === name || key.startsWith(`${name}@`));
  if (names(overrides)) return true;
  const scoped = Object.entries(overrides).find(
    ([key, value]) => typeof value === 'object' && (key === dependent || key.startsWith(`${dependent}@`)),
  );
  return scoped !== undefined && names(scoped[1] as Overrides);
}

describe('Node versions and locked dependencies agree', () => {
  const oldest = oldestSupportedNode();

  it('the image runs the Node major that package.json engines starts at', () => {
    const dockerfile = readFileSync(join(deployDir, 'Dockerfile'), 'utf8');
    const majors = [...dockerfile.matchAll(/^FROM\s+node:(\d+)\b/gm)].map((match) => Number(match[1]));
    expect(majors.length).toBeGreaterThan(0);
    expect(new Set(majors)).toEqual(new Set([oldest.major]));
    // node:<major> is that major's newest release, which the range must admit.
    expect(semver.intersects(manifest.engines.node, `${oldest.major}.x`)).toBe(true);
  });

  it('every locked package runs on the oldest supported Node (npm install warns EBADENGINE otherwise)', () => {
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(locked)) {
      const wanted = Array.isArray(entry.engines) ? undefined : entry.engines?.['node'];
      if (path === '' || wanted === undefined) continue;
      if (!semver.satisfies(oldest, wanted, { includePrerelease: true }))
        refusing.push(`${nameAt(path)}@${entry.version} wants node ${wanted}`);
    }
    expect(refusing).toEqual([]);
  });

  it('every locked dependency and installed peer is in its range or overridden (npm install fails ERESOLVE otherwise)', () => {
    const conflicts: string[] = [];
    for (const [path, entry] of Object.entries(locked)) {
      if (entry.link) continue;
      const dependent = path === '' ? '' : nameAt(path);
      const wants = {
        ...entry.peerDependencies,
        ...entry.optionalDependencies,
        ...entry.dependencies,
      };
      for (const [name, range] of Object.entries(wants)) {
        // Aliases, tags, files and git: not version ranges, npm checks nothing about them here.
        if (semver.validRange(range) === null) continue;
        const found = resolve(path, name);
        // An absent optional dependency or peer is allowed; npm adds missing required peers itself.
        if (!found?.version) continue;
        if (semver.satisfies(found.version, range, { includePrerelease: true })) continue;
        if (overridden(dependent, name)) continue;
        conflicts.push(
          `${dependent || 'package.json'} wants ${name}@${range}, the lock has ${found.version}`,
        );
      }
    }
    expect(conflicts).toEqual([]);
  });
});
