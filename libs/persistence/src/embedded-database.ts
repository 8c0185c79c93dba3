import { randomBytes } from 'node:crypto';
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import {
  dataDirLayout,
  readPostmasterPid,
  readRunningFile,
  writeRunningFile,
  type DataDirLayout,
} from './embedded/data-dir-layout';
import { loadEmbeddedPostgres, type EmbeddedPostgresServer } from './embedded/embedded-postgres-module';
import { freePort } from './embedded/free-port';
import { processIsAlive, processIsPostgres, waitForExit } from './embedded/process-alive';
import { ensureTraversableByOthers } from './embedded/traversable';

export interface EmbeddedDatabaseOptions {
  /** `JUMBE_DATA_DIR`; the cluster lives in `<dataDir>/postgres`. */
  dataDir: string;
  /** TCP port on 127.0.0.1; 0 or absent picks a free one. */
  port?: number;
  /** Receives PostgreSQL's error output (its routine chatter is dropped). */
  log?: (line: string) => void;
}

const DATABASE = 'jumbe';
const SUPERUSER = 'postgres';
/** Output lines kept to explain a failed start (embedded-postgres rejects without a reason). */
const KEPT_OUTPUT_LINES = 40;
/** How long an orphaned server from a killed run gets to shut down before we give up. */
const ORPHAN_SHUTDOWN_MS = 30_000;

/**
 * The PostgreSQL server of the all-in-one mode, run from the `embedded-postgres` package's
 * binaries with its data under `JUMBE_DATA_DIR`, listening on 127.0.0.1 only, with a generated
 * password. Start it, hand `url` to `createDataSource`, and `stop()` it on shutdown.
 */
export class EmbeddedDatabase {
  private stopping?: Promise<void>;
  /**
   * If the process exits without calling stop(), ask PostgreSQL to shut down anyway (fast
   * shutdown; it finishes on its own). Exit handlers must be synchronous, hence the bare signal.
   * A process killed outright leaves it running; the next start() reclaims it.
   */
  private readonly stopOnExit = () => {
    try {
      process.kill(this.pid, 'SIGINT');
    } catch {
      // Already gone.
    }
  };

  private constructor(
    /** `postgres://postgres:<password>@127.0.0.1:<port>/jumbe` */
    readonly url: string,
    readonly port: number,
    private readonly server: EmbeddedPostgresServer,
    private readonly pid: number,
    private readonly layout: DataDirLayout,
  ) {}

  static async start(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
    const log = options.log ?? (() => undefined);
    const dataDir = resolve(options.dataDir);
    const layout = dataDirLayout(dataDir);
    const runningAsRoot = process.getuid?.() === 0;

    await mkdir(dataDir, { recursive: true });
    if (runningAsRoot) await ensureTraversableByOthers(dataDir);
    const clusterExists = await exists(join(layout.cluster, 'PG_VERSION'));
    const password = await passwordFor(layout, clusterExists);
    if (clusterExists) {
      await clearStaleServer(layout, log);
    } else {
      // A cluster directory without PG_VERSION is what an interrupted initdb leaves; initdb
      // refuses a non-empty directory, and there is no data in it to keep.
      await rm(layout.cluster, { recursive: true, force: true });
    }

    const port = options.port || (await freePort());
    const recentOutput: string[] = [];
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    const server = new EmbeddedPostgres({
      databaseDir: layout.cluster,
      port,
      user: SUPERUSER,
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      // Deterministic encoding and collation, whatever the host's locale settings are.
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      // TCP on loopback only; no Unix socket, whose default directory may not be writable.
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      // PostgreSQL refuses to run as root: then the package runs it as the `postgres` user,
      // creating that user if it does not exist, and gives it the cluster directory.
      createPostgresUser: runningAsRoot,
      onLog: (message) => keepErrors(message, recentOutput, log),
      onError: (error) => log(error instanceof Error ? error.message : String(error)),
    });

    if (!clusterExists) {
      try {
        await server.initialise();
      } catch (error) {
        await rm(layout.cluster, { recursive: true, force: true });
        throw new Error(
          `Could not create the embedded PostgreSQL cluster in ${layout.cluster}: ${messageOf(error)}`,
        );
      }
    }
    try {
      await server.start();
    } catch {
      throw new Error(
        `The embedded PostgreSQL in ${layout.cluster} did not start on port ${port}. Its last output:\n` +
          recentOutput.join('\n'),
      );
    }

    const pid = await readPostmasterPid(layout);
    const database = new EmbeddedDatabase(urlFor(password, port), port, server, pid ?? 0, layout);
    if (database.pid > 0) process.once('exit', database.stopOnExit);
    try {
      await createDatabaseIfMissing(password, port);
      await writeRunningFile(layout, { port, pid: pid ?? 0, ownerPid: process.pid });
    } catch (error) {
      await database.stop();
      throw error;
    }
    return database;
  }

  /** Shuts the server down (fast shutdown: open connections are closed). Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      process.removeListener('exit', this.stopOnExit);
      // embedded-postgres waits for the child's exit event, which never comes if the server had
      // already died; the pid check ends the wait in that case too.
      const stopped = this.server.stop();
      await (this.pid > 0
        ? Promise.race([stopped, waitForExit(this.pid, Number.POSITIVE_INFINITY)])
        : stopped);
      await rm(this.layout.runningFile, { force: true });
    })();
    return this.stopping;
  }
}

/**
 * The url of the embedded server another process started on `dataDir` (for CLI commands run
 * beside `npm start`), or null when none is running.
 */
export async function readRunningEmbedded(dataDir: string): Promise<{ url: string } | null> {
  const layout = dataDirLayout(resolve(dataDir));
  const running = await readRunningFile(layout);
  if (!running || !(await processIsAlive(running.pid))) return null;
  // The file outlives a crash; the pid may since belong to another process.
  if ((await readPostmasterPid(layout)) !== running.pid) return null;
  const password = await readFile(layout.passwordFile, 'utf8').catch(() => null);
  if (!password) return null;
  return { url: urlFor(password.trim(), running.port) };
}

function urlFor(password: string, port: number): string {
  return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
}

/** The superuser password: generated with the cluster, then read back on every start. */
async function passwordFor(layout: DataDirLayout, clusterExists: boolean): Promise<string> {
  const stored = await readFile(layout.passwordFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (stored !== null && stored.trim() !== '') return stored.trim();
  if (clusterExists) {
    throw new Error(
      `${layout.passwordFile} is missing: the password of the existing cluster in ${layout.cluster} is unknown`,
    );
  }
  const password = randomBytes(24).toString('base64url');
  await writeFile(layout.passwordFile, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * Deals with a `postmaster.pid` left in the cluster. PostgreSQL refuses to start while it names a
 * live process, and after a crash or a container restart that pid may belong to anything:
 * - no such process, or not a PostgreSQL one: the file is stale, remove it;
 * - a server started by a Jumbe process that no longer exists (killed without stopping it): shut
 *   that orphan down and take over;
 * - otherwise another live process is using this data directory: refuse.
 */
async function clearStaleServer(layout: DataDirLayout, log: (line: string) => void): Promise<void> {
  const pid = await readPostmasterPid(layout);
  if (pid === null) return;
  if (!(await processIsAlive(pid)) || !(await processIsPostgres(pid))) {
    log(`removing stale ${join(layout.cluster, 'postmaster.pid')} (pid ${pid} is not running)`);
    await rm(join(layout.cluster, 'postmaster.pid'), { force: true });
    return;
  }
  const running = await readRunningFile(layout);
  if (running?.pid === pid && running.ownerPid !== process.pid && !(await processIsAlive(running.ownerPid))) {
    log(
      `stopping the embedded PostgreSQL (pid ${pid}) left running by process ${running.ownerPid}, which is gone`,
    );
    process.kill(pid, 'SIGINT');
    if (await waitForExit(pid, ORPHAN_SHUTDOWN_MS)) return;
    throw new Error(
      `The orphaned embedded PostgreSQL (pid ${pid}) did not stop within ${ORPHAN_SHUTDOWN_MS / 1000} s`,
    );
  }
  throw new Error(
    `PostgreSQL (pid ${pid}) is already running on ${layout.cluster}: is another Jumbe process using this data directory?`,
  );
}

async function createDatabaseIfMissing(password: string, port: number): Promise<void> {
  const client = new Client({ host: '127.0.0.1', port, user: SUPERUSER, password, database: 'postgres' });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE)}`);
  } finally {
    await client.end();
  }
}

/** Keeps PostgreSQL's error lines for the log, and the last lines of everything for a failed start. */
function keepErrors(message: string, recentOutput: string[], log: (line: string) => void): void {
  for (const line of message.split('\n')) {
    if (line.trim() === '') continue;
    recentOutput.push(line);
    if (recentOutput.length > KEPT_OUTPUT_LINES) recentOutput.shift();
    if (/\b(ERROR|FATAL|PANIC)\b|\berror\b/.test(line)) log(line);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
