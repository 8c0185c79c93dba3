import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where the embedded server keeps its files under `JUMBE_DATA_DIR`. */
export interface DataDirLayout {
  /** The PostgreSQL cluster (owned by the `postgres` user when we run as root). */
  cluster: string;
  /** The superuser password, generated once, mode 600. */
  passwordFile: string;
  /** `{ port, pid, ownerPid }` while a server runs, so a CLI process can find it. */
  runningFile: string;
}

export function dataDirLayout(dataDir: string): DataDirLayout {
  return {
    cluster: join(dataDir, 'postgres'),
    passwordFile: join(dataDir, 'postgres-password'),
    runningFile: join(dataDir, 'embedded-postgres.json'),
  };
}

export interface RunningServer {
  port: number;
  /** The postmaster's pid. */
  pid: number;
  /** The Node process that started it (to recognise an orphan of a killed process). */
  ownerPid: number;
}

export async function readRunningFile(layout: DataDirLayout): Promise<RunningServer | null> {
  try {
    const { port, pid, ownerPid } = JSON.parse(
      await readFile(layout.runningFile, 'utf8'),
    ) as Partial<RunningServer>;
    if (
      typeof port !== 'number' ||
      typeof pid !== 'number' ||
      !Number.isInteger(port) ||
      !Number.isInteger(pid)
    )
      return null;
    return { port, pid, ownerPid: typeof ownerPid === 'number' ? ownerPid : 0 };
  } catch {
    return null;
  }
}

export async function writeRunningFile(layout: DataDirLayout, running: RunningServer): Promise<void> {
  // Written aside and renamed, so a reader never sees half a file.
  const temporary = `${layout.runningFile}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(running)}\n`);
  await rename(temporary, layout.runningFile);
}

/** The pid on the first line of the cluster's `postmaster.pid`, or null when there is none. */
export async function readPostmasterPid(layout: DataDirLayout): Promise<number | null> {
  const content = await readFile(join(layout.cluster, 'postmaster.pid'), 'utf8').catch(() => null);
  const pid = Number.parseInt(content?.split('\n')[0] ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}
