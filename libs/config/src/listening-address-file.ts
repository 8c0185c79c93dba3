import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** What a running all-in-one process records under `JUMBE_DATA_DIR` about where it listens. */
export interface ListeningAddress {
  /** The address the process actually listens on (the port may be one the OS chose). */
  url: string;
  pid: number;
}

const FILE_NAME = 'all-in-one.json';

const fileIn = (dataDir: string) => join(resolve(dataDir), FILE_NAME);

/**
 * Records where the all-in-one listens, so `npx jumbe quickstart` can print the real address
 * instead of guessing the default port. Written atomically; returns the remover for shutdown.
 */
export async function recordListeningAddress(dataDir: string, url: string): Promise<() => Promise<void>> {
  const file = fileIn(dataDir);
  await mkdir(resolve(dataDir), { recursive: true });
  const body: ListeningAddress = { url, pid: process.pid };
  await writeFile(`${file}.tmp`, `${JSON.stringify(body)}\n`, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  return () => rm(file, { force: true });
}

/** The address of the all-in-one running on `dataDir`, or null when none runs (a stale file is ignored). */
export async function readListeningAddress(dataDir: string): Promise<ListeningAddress | null> {
  const text = await readFile(fileIn(dataDir), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as Partial<ListeningAddress>;
    if (typeof parsed.url !== 'string' || typeof parsed.pid !== 'number') return null;
    // The file outlives a crash; only a live process makes it true.
    process.kill(parsed.pid, 0);
    return { url: parsed.url, pid: parsed.pid };
  } catch {
    return null;
  }
}
