import { createThrowawayDatabase, TEST_SERVER_URL, type ThrowawayDatabase } from '@jumbe/persistence';
import { apiClient, type ApiClient, eventually, ServiceProcess, WORKSPACE_ROOT } from '@jumbe/testing';
import Redis from 'ioredis';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_ENTRY, type CliRun, runCli } from './support/cli-runner';
import { NATS_URL, REDIS_URL } from './support/topology';

/** The JSON a successful command printed; on failure, the run itself, which shows why. */
function json<T = any>(run: CliRun): T {
  expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(run.stdout) as T;
}

/** A failed command: exit code 1, nothing on stdout, one `error: …` line matching `message`. */
function expectFailure(run: CliRun, message: RegExp): void {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
  expect(run.stderr).toMatch(/^error: /);
  expect(run.stderr).toMatch(message);
  // A clear message, not a stack trace.
  expect(run.stderr).not.toMatch(/\n\s+at /);
}

/** Live processes whose command line mentions `path` (the embedded postmaster names its data dir). */
async function processesUsing(path: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.replace(/\0/g, ' ').includes(path)) found.push(Number(entry));
  }
  return found;
}

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

describe('operator CLI (npx jumbe) on PostgreSQL', () => {
  let database: ThrowawayDatabase;
  let env: Record<string, string>;
  const deployment = `cli-${randomBytes(4).toString('hex')}`;
  let gatewayStart: Promise<ServiceProcess> | undefined;
  let gateway: ServiceProcess | undefined;
  const startGateway = () =>
    ServiceProcess.start('gateway', {
      JUMBE_DATABASE_URL: database.url,
      JUMBE_REDIS_URL: REDIS_URL,
      JUMBE_NATS_URL: NATS_URL,
      JUMBE_SECRET_KEY: randomBytes(32).toString('base64url'),
      JUMBE_DEPLOYMENT: deployment,
    });

  beforeAll(async () => {
    database = await createThrowawayDatabase(TEST_SERVER_URL);
    env = { JUMBE_DATABASE_URL: database.url };
  });

  afterAll(async () => {
    await (gateway ?? (await gatewayStart?.catch(() => undefined)))?.stop();
    await database?.drop();
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${deployment}/*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });

  it('migrate applies the migrations, then finds nothing to apply', async () => {
    const first = json<{ applied: string[] }>(await runCli(['migrate'], env));
    expect(first.applied.length).toBeGreaterThan(0);
    const second = json<{ applied: string[] }>(await runCli(['migrate'], env));
    expect(second).toEqual({ applied: [] });

    // The schema is in place: start the gateway for the last tests now, it takes a few seconds.
    gatewayStart = startGateway();
    // Awaited (and its failure reported) by the gateway tests; never an unhandled rejection.
    gatewayStart.catch(() => undefined);
  });

  const starter = unique('starter');
  const pro = unique('pro');

  it('plans create prints the plan; plans list shows it', async () => {
    const created = json(
      await runCli(['plans', 'create', starter, '--monthly-api-hits', '1000', '--max-sessions', '2'], env),
    );
    expect(created).toEqual({
      id: expect.any(String),
      name: starter,
      monthlyApiHits: 1000,
      maxSessions: 2,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    json(await runCli(['plans', 'create', pro, '--monthly-api-hits', '50000', '--max-sessions', '10'], env));

    const listed = json<Array<{ name: string }>>(await runCli(['plans', 'list'], env));
    expect(listed).toEqual(expect.arrayContaining([created, expect.objectContaining({ name: pro })]));
  });

  it('prints tables on a terminal, and JSON with --json even there', async () => {
    // `script` gives the CLI a pseudo-terminal, as an operator's shell does.
    const onTerminal = (args: string) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn('script', ['-qec', `${process.execPath} ${CLI_ENTRY} ${args}`, '/dev/null'], {
          cwd: WORKSPACE_ROOT,
          env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
        child.once('error', reject);
        child.once('close', () => resolve(out.replace(/\r/g, '')));
      });
    const table = await onTerminal('plans list');
    expect(table).toMatch(/^ID\s+NAME\s+MONTHLYAPIHITS\s+MAXSESSIONS\s+CREATEDAT$/m);
    expect(table).toMatch(new RegExp(`\\s${starter}\\s+1000\\s+2\\s`));
    const asJson = await onTerminal('plans list --json');
    expect(JSON.parse(asJson)).toEqual(expect.arrayContaining([expect.objectContaining({ name: starter })]));
  });

  it('refuses a duplicate plan name with exit code 1 and says why', async () => {
    const run = await runCli(
      ['plans', 'create', starter, '--monthly-api-hits', '5', '--max-sessions', '1'],
      env,
    );
    expectFailure(run, new RegExp(`plan named "${starter}" already exists`));
  });

  it('refuses a count that is not a whole number with commander’s message', async () => {
    const run = await runCli(
      ['plans', 'create', unique('bad'), '--monthly-api-hits', 'many', '--max-sessions', '1'],
      env,
    );
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/--monthly-api-hits <n>' argument 'many' is invalid/);
    expect(run.stderr).toMatch(/expected a whole number/);

    // A missing required option is refused the same way, and nothing was created.
    const missing = await runCli(['plans', 'create', unique('bad'), '--monthly-api-hits', '5'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/required option '--max-sessions <n>' not specified/);
    const names = json<Array<{ name: string }>>(await runCli(['plans', 'list'], env)).map((p) => p.name);
    expect(names.filter((name) => name.startsWith('bad-'))).toEqual([]);
  });

  let accountId: string;

  it('accounts create / list / show', async () => {
    const account = json(await runCli(['accounts', 'create', 'Acme Ltd', '--plan', starter], env));
    expect(account).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Acme Ltd',
      plan: starter,
      suspended: false,
      createdAt: expect.any(String),
    });
    accountId = account.id;

    expect(json(await runCli(['accounts', 'list'], env))).toEqual(expect.arrayContaining([account]));
    expect(json(await runCli(['accounts', 'show', accountId], env))).toEqual(account);
  });

  it('refuses an account on an unknown plan, naming the plan', async () => {
    const run = await runCli(['accounts', 'create', 'Nobody', '--plan', 'no-such-plan'], env);
    expectFailure(run, /no plan named "no-such-plan"/);
    const names = json<Array<{ name: string }>>(await runCli(['accounts', 'list'], env)).map((a) => a.name);
    expect(names).not.toContain('Nobody');
  });

  it('accounts update suspends, lifts the suspension and moves the plan', async () => {
    const suspended = json(await runCli(['accounts', 'update', accountId, '--suspend'], env));
    expect(suspended).toMatchObject({ id: accountId, suspended: true, plan: starter });
    const lifted = json(await runCli(['accounts', 'update', accountId, '--unsuspend'], env));
    expect(lifted).toMatchObject({ id: accountId, suspended: false, plan: starter });
    const moved = json(await runCli(['accounts', 'update', accountId, '--plan', pro], env));
    expect(moved).toMatchObject({ id: accountId, suspended: false, plan: pro });
    expect(json(await runCli(['accounts', 'show', accountId], env))).toEqual(moved);

    expectFailure(
      await runCli(['accounts', 'update', accountId, '--plan', 'no-such-plan'], env),
      /no plan named "no-such-plan"/,
    );
  });

  it('--version prints the product version', async () => {
    const run = await runCli(['--version'], env);
    const manifest = JSON.parse(await readFile(join(WORKSPACE_ROOT, 'package.json'), 'utf8'));
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: `${manifest.version}\n` });
  });

  it('addresses accounts by name as well as id, and refuses an ambiguous name', async () => {
    const name = unique('named');
    const account = json(await runCli(['accounts', 'create', name, '--plan', pro], env));
    expect(json(await runCli(['accounts', 'show', name], env))).toEqual(account);
    const key = json(await runCli(['keys', 'create', name, '--name', 'by-name'], env));
    expect(json(await runCli(['keys', 'list', name], env))).toEqual([key.data]);
    expect(json(await runCli(['accounts', 'update', name, '--suspend'], env))).toMatchObject({
      id: account.id,
      suspended: true,
    });
    // A plan by id as well as by name.
    const proPlan = json<Array<{ id: string; name: string }>>(await runCli(['plans', 'list'], env)).find(
      (plan) => plan.name === pro,
    )!;
    expect(json(await runCli(['accounts', 'update', name, '--plan', proPlan.id], env))).toMatchObject({
      plan: pro,
    });

    const twin = json(await runCli(['accounts', 'create', name, '--plan', pro], env));
    const run = await runCli(['accounts', 'show', name], env);
    expectFailure(run, new RegExp(`2 accounts are named "${name}"; use an id`));
    expect(run.stderr).toContain(twin.id);
  });

  it('refuses an unknown account id with exit code 1', async () => {
    const missing = randomUUID();
    expectFailure(
      await runCli(['accounts', 'show', missing], env),
      new RegExp(`No account with id ${missing}`),
    );
    expectFailure(await runCli(['accounts', 'show', 'not-a-uuid'], env), /No account with id not-a-uuid/);
    expectFailure(await runCli(['accounts', 'update', missing, '--suspend'], env), /No account/);
    expectFailure(await runCli(['keys', 'create', missing, '--name', 'x'], env), /No account/);
    expectFailure(await runCli(['keys', 'list', missing], env), /No account/);
  });

  it('keys create prints the key once; keys list never shows key material; keys revoke', async () => {
    const created = json<{ data: any; key: string }>(
      await runCli(['keys', 'create', accountId, '--name', 'x', '--scope', 'read'], env),
    );
    expect(created.key).toMatch(/^jmb_[A-Za-z0-9_-]{43}$/);
    expect(created.key).toHaveLength(47);
    expect(created.data).toEqual({
      id: expect.any(String),
      name: 'x',
      scope: 'read',
      prefix: created.key.slice(0, 12),
      createdAt: expect.any(String),
      revokedAt: null,
      lastUsedAt: null,
    });

    const listRun = await runCli(['keys', 'list', accountId], env);
    expect(json(listRun)).toEqual([created.data]);
    expect(listRun.stdout).not.toContain(created.key);
    expect(listRun.stdout).not.toMatch(/hash/i);

    const revoked = json(await runCli(['keys', 'revoke', accountId, created.data.id], env));
    expect(revoked).toEqual({ ...created.data, revokedAt: expect.any(String) });
    expect(json(await runCli(['keys', 'list', accountId], env))).toEqual([revoked]);

    expectFailure(await runCli(['keys', 'revoke', accountId, randomUUID()], env), /has no key/);
    expectFailure(
      await runCli(['keys', 'create', accountId, '--scope', 'admin'], env),
      /Invalid arguments: \/scope/,
    );
  });

  describe('with a gateway on the same database', () => {
    let api: ApiClient;
    let quickstart: { account: any; plan: any; apiKey: string; keyId: string; next: string };
    // The CLI announces access changes on Redis, as the admin API does.
    const cliEnv = () => ({ ...env, JUMBE_REDIS_URL: REDIS_URL, JUMBE_DEPLOYMENT: deployment });

    beforeAll(async () => {
      gateway = await (gatewayStart ??= startGateway());
      api = apiClient(gateway.url);
    });

    it('quickstart creates the trial plan, an account and a full key that works', async () => {
      quickstart = json(await runCli(['quickstart', '--account', 'acme'], cliEnv()));
      expect(quickstart).toEqual({
        account: expect.objectContaining({ name: 'acme', plan: 'trial', suspended: false }),
        plan: expect.objectContaining({ name: 'trial', monthlyApiHits: 10_000, maxSessions: 3 }),
        apiKey: expect.stringMatching(/^jmb_[A-Za-z0-9_-]{43}$/),
        keyId: expect.any(String),
        reused: false,
        // Nothing runs on this data dir: the configured port, since `npm start` would use it.
        baseUrl: 'http://localhost:8080',
        next: expect.stringContaining(quickstart.apiKey),
      });
      expect(quickstart.next).toContain(`http://localhost:8080/api/v1/usage`);
      // Run again, it reuses the trial plan and the account, with a new key that works too.
      const again = json(await runCli(['quickstart', '--account', 'acme'], cliEnv()));
      expect(again.plan).toEqual(quickstart.plan);
      expect(again.account).toEqual(quickstart.account);
      expect(again.reused).toBe(true);
      expect(again.apiKey).not.toBe(quickstart.apiKey);
      const acmes = json<Array<{ name: string }>>(await runCli(['accounts', 'list'], cliEnv())).filter(
        (account) => account.name === 'acme',
      );
      expect(acmes).toHaveLength(1);
      expect((await api.get('/api/v1/usage', { key: again.apiKey })).status).toBe(200);
      json(await runCli(['keys', 'revoke', 'acme', again.keyId], cliEnv()));

      const usage = await api.get('/api/v1/usage', { key: quickstart.apiKey });
      expect({ status: usage.status, text: usage.status === 200 ? '' : usage.text }).toEqual({
        status: 200,
        text: '',
      });
      expect(usage.body.data).toMatchObject({ plan: 'trial', apiHitLimit: 10_000, sessionLimit: 3 });
    });

    it('a suspension and a plan change through the CLI reach the gateway at once', async () => {
      const id = quickstart.account.id as string;
      json(await runCli(['accounts', 'update', id, '--suspend'], cliEnv()));
      await eventually(
        'the suspension to reach the gateway',
        async () => {
          const response = await api.get('/api/v1/usage', { key: quickstart.apiKey });
          return response.status === 403 && response.body.error.code === 'account_suspended';
        },
        1_000,
      );
      json(await runCli(['accounts', 'update', id, '--unsuspend', '--plan', pro], cliEnv()));
      await eventually(
        'the plan change to reach the gateway',
        async () => {
          const response = await api.get('/api/v1/usage', { key: quickstart.apiKey });
          return response.status === 200 && response.body.data.plan === pro;
        },
        1_000,
      );
    });

    it('a key revoked through the CLI gets 401 on the gateway within one second', async () => {
      // The key is in the gateway's cache (used above); only the invalidation can end it this fast.
      expect((await api.get('/api/v1/usage', { key: quickstart.apiKey })).status).toBe(200);
      json(await runCli(['keys', 'revoke', quickstart.account.id, quickstart.keyId], cliEnv()));
      await eventually(
        'the revocation to reach the gateway',
        async () => {
          const response = await api.get('/api/v1/usage', { key: quickstart.apiKey });
          return response.status === 401 && response.body.error.code === 'unauthorized';
        },
        1_000,
      );
    });

    it('plans update changes the limits an account sees on the gateway at once', async () => {
      const updated = json(await runCli(['plans', 'update', pro, '--max-sessions', '7'], cliEnv()));
      expect(updated).toMatchObject({ name: pro, maxSessions: 7, monthlyApiHits: 50_000 });
      const fresh = json<{ key: string }>(await runCli(['keys', 'create', 'acme'], cliEnv()));
      expect((await api.get('/api/v1/usage', { key: fresh.key })).body.data).toMatchObject({
        sessionLimit: 7,
      });
      json(await runCli(['plans', 'update', pro, '--max-sessions', '8'], cliEnv()));
      await eventually(
        'the plan change to reach the gateway',
        async () => (await api.get('/api/v1/usage', { key: fresh.key })).body.data?.sessionLimit === 8,
        1_000,
      );
      expectFailure(await runCli(['plans', 'update', pro], cliEnv()), /nothing to change/);
      expectFailure(
        await runCli(['plans', 'update', 'no-such-plan', '--max-sessions', '1'], cliEnv()),
        /No plan/,
      );
    });

    it('keys rotate: the new key works at once, the old one until its grace period ends', async () => {
      const old = json<{ data: any; key: string }>(
        await runCli(['keys', 'create', 'acme', '--name', 'ci'], cliEnv()),
      );
      expect((await api.get('/api/v1/usage', { key: old.key })).status).toBe(200);

      const rotated = json(await runCli(['keys', 'rotate', 'acme', old.data.id, '--grace', '3s'], cliEnv()));
      expect(rotated.data).toMatchObject({ name: 'ci', scope: 'full', revokedAt: null });
      const revokesAt = Date.parse(rotated.previous.revokedAt);
      expect(revokesAt).toBeGreaterThan(Date.now());
      expect((await api.get('/api/v1/usage', { key: rotated.key })).status).toBe(200);
      // Still inside the grace period (and cached): the old key works.
      expect((await api.get('/api/v1/usage', { key: old.key })).status).toBe(200);
      await eventually(
        'the old key to stop working when its grace period ends',
        async () => (await api.get('/api/v1/usage', { key: old.key })).status === 401,
        10_000,
      );
      expect(Date.now()).toBeGreaterThanOrEqual(revokesAt);
      expect((await api.get('/api/v1/usage', { key: rotated.key })).status).toBe(200);

      expectFailure(await runCli(['keys', 'rotate', 'acme', old.data.id], cliEnv()), /already revoked/);
      expectFailure(
        await runCli(['keys', 'rotate', 'acme', rotated.data.id, '--grace', 'soon'], cliEnv()),
        /expected a duration/,
      );
    });

    it("accounts report shows the account's usage, sessions and recent failures", async () => {
      const report = json(await runCli(['accounts', 'report', 'acme'], cliEnv()));
      expect(report).toEqual({
        account: expect.objectContaining({ name: 'acme', plan: pro }),
        usage: expect.objectContaining({
          apiHits: expect.any(Number),
          messagesSent: expect.any(Number),
          sendFailures: expect.any(Number),
          apiHitLimit: 50_000,
          sessionLimit: 8,
        }),
        sessions: [],
        recentFailures: [],
      });
      expectFailure(await runCli(['accounts', 'report', 'nobody-here'], cliEnv()), /No account/);
    });
  });
});

describe('configuration errors', () => {
  /** Runs a dist entry point with only `env`: exit code and stderr. */
  const runEntry = (entry: string, env: Record<string, string>) =>
    new Promise<CliRun>((resolve, reject) => {
      const child = spawn(process.execPath, [join(WORKSPACE_ROOT, 'dist', 'apps', entry, 'src', 'main.js')], {
        cwd: WORKSPACE_ROOT,
        env: { PATH: process.env['PATH'] ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('error', reject);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });

  it.each(['cli', 'gateway', 'all-in-one', 'session-worker'])(
    '%s prints one line per problem and exits 1 without a stack trace',
    async (entry) => {
      const run = await runEntry(entry, { JUMBE_PORT: 'eighty', JUMBE_NETWORK: 'telegram' });
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^configuration error: JUMBE_PORT: /),
        expect.stringMatching(/^configuration error: JUMBE_NETWORK: /),
      ]);
    },
  );

  it('a distributed service names the settings it misses, on one line', async () => {
    const run = await runEntry('gateway', {});
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^configuration error: the gateway needs JUMBE_DATABASE_URL, .*\n$/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('operator CLI (npx jumbe) with the embedded database', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'jumbe-cli-'));
  });
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('quickstart starts the embedded PostgreSQL under JUMBE_DATA_DIR, prints an account and stops it', async () => {
    const run = await runCli(['quickstart'], { JUMBE_DATA_DIR: dataDir }, 90_000);
    const printed = json(run);
    expect(printed.account).toEqual(
      expect.objectContaining({ name: 'demo', plan: 'trial', suspended: false }),
    );
    expect(printed.apiKey).toMatch(/^jmb_[A-Za-z0-9_-]{43}$/);

    // The cluster was created there, and nothing of the server is left running.
    expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'embedded-postgres.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(await processesUsing(dataDir)).toEqual([]);
  });

  describe('beside a running all-in-one (npm start) on the same data dir', () => {
    let allInOne: ServiceProcess;
    let api: ApiClient;
    let quickstart: { apiKey: string; keyId: string };
    const allInOneEnv = () => ({
      JUMBE_DATA_DIR: dataDir,
      JUMBE_SECRET_KEY: randomBytes(32).toString('base64url'),
    });

    beforeAll(async () => {
      allInOne = await ServiceProcess.start('all-in-one', allInOneEnv(), { timeoutMs: 90_000 });
      api = apiClient(allInOne.url);
    }, 120_000);
    afterAll(async () => {
      await allInOne?.stop();
    });

    it('quickstart reuses the demo account and prints the port the process really listens on', async () => {
      const run = json(await runCli(['quickstart'], { JUMBE_DATA_DIR: dataDir }));
      expect(run.reused).toBe(true);
      const port = new URL(allInOne.url).port;
      expect(port).not.toBe('8080');
      expect(new URL(run.baseUrl).port).toBe(port);
      expect(run.next).toContain(`:${port}/api/v1/usage`);
      const usage = await api.get('/api/v1/usage', { key: run.apiKey });
      expect(usage.status).toBe(200);
      quickstart = run;
    });

    it('a key revoked and an account suspended with the CLI are refused by the running process at once', async () => {
      // The key is cached in the process (no Redis): only the PostgreSQL NOTIFY can end it this fast.
      expect((await api.get('/api/v1/usage', { key: quickstart.apiKey })).status).toBe(200);
      json(await runCli(['keys', 'revoke', 'demo', quickstart.keyId], { JUMBE_DATA_DIR: dataDir }));
      await eventually(
        'the revocation to reach the all-in-one',
        async () => (await api.get('/api/v1/usage', { key: quickstart.apiKey })).status === 401,
        1_000,
      );

      const fresh = json<{ key: string }>(
        await runCli(['keys', 'create', 'demo'], { JUMBE_DATA_DIR: dataDir }),
      );
      expect((await api.get('/api/v1/usage', { key: fresh.key })).status).toBe(200);
      json(await runCli(['accounts', 'update', 'demo', '--suspend'], { JUMBE_DATA_DIR: dataDir }));
      await eventually(
        'the suspension to reach the all-in-one',
        async () => (await api.get('/api/v1/usage', { key: fresh.key })).status === 403,
        1_000,
      );
    });
  });
});
