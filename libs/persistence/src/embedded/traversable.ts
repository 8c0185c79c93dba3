import { chmod, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * When we run as root, PostgreSQL runs as the unprivileged `postgres` user (it refuses root), so
 * that user must be able to reach the cluster directory: every directory above it needs the
 * "others may traverse" bit. The data directory itself is ours, so we add the bit (it lets nobody
 * list or read anything); for its parents we only explain what to change.
 */
export async function ensureTraversableByOthers(dataDir: string): Promise<void> {
  const own = await stat(dataDir);
  if ((own.mode & 0o001) === 0) await chmod(dataDir, (own.mode & 0o7777) | 0o001);
  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    const { mode } = await stat(dir);
    if ((mode & 0o001) === 0) {
      throw new Error(
        `The embedded PostgreSQL runs as the "postgres" user, which cannot reach ${dataDir}: ` +
          `${dir} is not traversable by other users (chmod o+x ${dir}, or choose another data directory).`,
      );
    }
    if (dir === dirname(dir)) return;
  }
}
