import { readFile } from 'node:fs/promises';

/**
 * Whether a process with this pid exists. A zombie (exited, not yet reaped by its parent, e.g. an
 * orphaned postmaster under a container's init) counts as dead: it holds no port or data files.
 */
export async function processIsAlive(pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user (e.g. the postgres user while we are not root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  // Format: "pid (comm) state ..."; comm may contain spaces or parentheses, so split after the last ')'.
  const state = stat?.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z';
}

/** Whether the process looks like a PostgreSQL server. Unknown (no /proc) counts as yes, to be safe. */
export async function processIsPostgres(pid: number): Promise<boolean> {
  const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => null);
  return commandLine === null || commandLine.includes('postgres');
}

/** Resolves once the process has exited; false if it still runs after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (await processIsAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}
