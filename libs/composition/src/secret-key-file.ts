import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The all-in-one mode needs no setup, so it generates its encryption key once into the data
 * directory (mode 600) and reuses it; losing it makes stored secrets unreadable, so it lives
 * beside the database it protects and is backed up with it.
 */
export async function secretKeyFromDataDir(dataDir: string): Promise<string> {
  const path = join(dataDir, 'secret.key');
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  await writeFile(path, `${key}\n`, { mode: 0o600, flag: 'wx' }).catch(
    async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    },
  );
  return (await readFile(path, 'utf8')).trim();
}
