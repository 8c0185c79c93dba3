import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDataSource } from './data-source';
import { ALL_MIGRATIONS } from './migrations/all-migrations';
import { EmbeddedDatabase, readRunningEmbedded } from './embedded-database';
import { migrate } from './migration-runner';
import { PlanRepository } from './repositories/plan.repository';

/** A pid that certainly belongs to no process: one of a child that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

async function withDataSource<T>(
  url: string,
  work: (dataSource: ReturnType<typeof createDataSource>) => Promise<T>,
): Promise<T> {
  const dataSource = createDataSource(url, { poolSize: 2 });
  await dataSource.initialize();
  try {
    return await work(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

describe('EmbeddedDatabase', () => {
  let dataDir: string;
  const started: EmbeddedDatabase[] = [];
  const logged: string[] = [];
  const start = async () => {
    const database = await EmbeddedDatabase.start({ dataDir, log: (line) => logged.push(line) });
    started.push(database);
    return database;
  };

  beforeAll(async () => {
    // Under /tmp and world-traversable: as root, PostgreSQL runs as the postgres user.
    dataDir = await mkdtemp(join(tmpdir(), 'jumbe-embedded-'));
    await chmod(dataDir, 0o755);
  });

  afterAll(async () => {
    await Promise.all(started.map((database) => database.stop()));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates a cluster, serves the jumbe database, and keeps its data across restarts', async () => {
    const first = await start();
    expect(first.url).toMatch(/^postgres:\/\/postgres:[A-Za-z0-9_-]{20,}@127\.0\.0\.1:\d+\/jumbe$/);
    expect(first.url).toContain(`:${first.port}/`);
    await expect(stat(join(dataDir, 'postgres', 'PG_VERSION'))).resolves.toBeDefined();
    expect((await stat(join(dataDir, 'postgres-password'))).mode & 0o777).toBe(0o600);

    const running = JSON.parse(await readFile(join(dataDir, 'embedded-postgres.json'), 'utf8')) as {
      port: number;
      pid: number;
    };
    expect(running.port).toBe(first.port);
    expect(running.pid).toBeGreaterThan(0);
    expect(await readRunningEmbedded(dataDir)).toEqual({ url: first.url });

    await withDataSource(first.url, async (dataSource) => {
      expect((await migrate(dataSource)).applied).toEqual(ALL_MIGRATIONS.map((migration) => migration.name));
      await new PlanRepository(dataSource).create({ name: 'kept', monthlyApiHits: 42, maxSessions: 1 });
    });

    await first.stop();
    await first.stop(); // idempotent
    await expect(stat(join(dataDir, 'embedded-postgres.json'))).rejects.toThrow();
    expect(await readRunningEmbedded(dataDir)).toBeNull();
    await expect(withDataSource(first.url, async () => undefined)).rejects.toThrow();

    // As if the previous run had been killed: its postmaster.pid names a process that is gone.
    await writeFile(
      join(dataDir, 'postgres', 'postmaster.pid'),
      `${deadPid()}\n${join(dataDir, 'postgres')}\n`,
    );

    const second = await start();
    expect(second.url.split('@')[0]).toBe(first.url.split('@')[0]); // same password
    await withDataSource(second.url, async (dataSource) => {
      expect((await migrate(dataSource)).applied).toEqual([]);
      expect((await new PlanRepository(dataSource).findByName('kept'))?.monthlyApiHits).toBe(42);
    });
    expect(logged.some((line) => line.includes('stale'))).toBe(true);
  }, 60_000);

  it('refuses to start a second server on a data directory in use', async () => {
    await expect(start()).rejects.toThrow(/already running/);
    expect(await readRunningEmbedded(dataDir)).not.toBeNull();
  }, 30_000);

  it('takes over a server left running by a process that was killed', async () => {
    const running = JSON.parse(await readFile(join(dataDir, 'embedded-postgres.json'), 'utf8')) as {
      port: number;
      pid: number;
    };
    await writeFile(
      join(dataDir, 'embedded-postgres.json'),
      JSON.stringify({ ...running, ownerPid: deadPid() }),
    );

    const third = await start();
    expect(third.port).not.toBe(running.port);
    await withDataSource(third.url, async (dataSource) => {
      expect((await new PlanRepository(dataSource).findByName('kept'))?.maxSessions).toBe(1);
    });
    expect(await readRunningEmbedded(dataDir)).toEqual({ url: third.url });
  }, 60_000);
});
