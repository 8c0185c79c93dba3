import { RecordingReceiver, ServiceProcess, apiClient } from '@jumbe/testing';
import { verifyDelivery } from '@jumbe/webhook-receiver';
import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './support/cli-runner';
import { createAccount } from './support/operator';
import { linkSession } from './support/sandbox-helpers';
import { startAllInOne } from './support/topology';

/**
 * Backups of the all-in-one mode (README "Backups"): `jumbe backup` reads the embedded PostgreSQL
 * of a running process, and `jumbe restore` loads the file into a fresh data directory that an
 * all-in-one then starts on, with the same keys, sessions and (given the old secret.key) the same
 * sealed webhook secret.
 */
describe('jumbe backup / restore of a running all-in-one', () => {
  const scratch: string[] = [];
  let receiver: RecordingReceiver;

  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
  });
  afterAll(async () => {
    await receiver?.close();
    for (const path of scratch) await rm(path, { recursive: true, force: true });
  });

  it('restores into a fresh data directory that then serves the same key, session and webhook secret', async () => {
    const first = await startAllInOne({ JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' });
    scratch.push(first.dataDir);
    const backupDir = await mkdtemp(join(tmpdir(), 'jumbe-backup-'));
    scratch.push(backupDir);
    const file = join(backupDir, 'jumbe.backup');
    let lateKey: string;
    let secret: string;
    const account = await createAccount(first.gateways[0]!, first.adminToken);
    try {
      const api = first.gateways[0]!;
      await linkSession(api, account.key, 'kept');
      const webhook = await api.patch('/api/v1/webhook', {
        key: account.key,
        body: { url: `${receiver.url}/restored` },
      });
      secret = webhook.body.secret;

      const backup = await runCli(['--json', 'backup', file], { JUMBE_DATA_DIR: first.dataDir });
      expect({ code: backup.code, stderr: backup.stderr }).toEqual({ code: 0, stderr: '' });
      const tables = Object.fromEntries(
        (JSON.parse(backup.stdout).tables as Array<{ name: string; rows: number }>).map((t) => [
          t.name,
          t.rows,
        ]),
      );
      expect(tables).toMatchObject({ accounts: 1, api_keys: 1, sessions: 1, webhooks: 1, migrations: 5 });
      // Key hashes and sealed secrets: readable by the owner only.
      expect((await stat(file)).mode & 0o077).toBe(0);

      // Made after the backup: the restore must not know it.
      const late = await api.post(`/api/v1/admin/accounts/${account.accountId}/keys`, {
        bearer: first.adminToken,
        body: { name: 'after-backup' },
      });
      lateKey = late.body.key;
    } finally {
      await first.processes[0]!.stop();
    }

    // A fresh data directory: restore warns that the secret key is missing, then the old one is put in place.
    const dataDir = await mkdtemp(join(tmpdir(), 'jumbe-restored-'));
    scratch.push(dataDir);
    const restore = await runCli(['--json', 'restore', file], { JUMBE_DATA_DIR: dataDir });
    expect(restore.code).toBe(0);
    expect(JSON.parse(restore.stdout)).toMatchObject({ secretKey: 'missing', migrationsApplied: [] });
    expect(restore.stderr).toMatch(/copy secret\.key from the backed-up data directory/);
    await copyFile(join(first.dataDir, 'secret.key'), join(dataDir, 'secret.key'));

    const restored = await ServiceProcess.start(
      'all-in-one',
      {
        JUMBE_DATA_DIR: dataDir,
        JUMBE_ADMIN_TOKEN: first.adminToken,
        JUMBE_NETWORK: 'sandbox',
        JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
      },
      { timeoutMs: 120_000 },
    );
    try {
      const api = apiClient(restored.url);
      expect((await api.get('/api/v1/usage', { key: account.key })).status).toBe(200);
      expect((await api.get('/api/v1/usage', { key: lateKey })).status).toBe(401);
      const sessions = await api.get('/api/v1/sessions', { key: account.key });
      expect(sessions.body.data.map((session: { sessionId: string }) => session.sessionId)).toEqual(['kept']);

      // The webhook secret was sealed with the old secret.key; the restored process opens it and signs with it.
      const tested = await api.post('/api/v1/webhook/test', { key: account.key });
      expect(tested.body.data.delivery.status).toBe('success');
      const [request] = receiver.at('/restored');
      expect(
        verifyDelivery({ body: request!.raw, headers: request!.headers as Record<string, string>, secret }),
      ).toMatchObject({ deliveryId: tested.body.data.delivery.id });

      // Restoring over a running installation is refused.
      const again = await runCli(['restore', file], { JUMBE_DATA_DIR: dataDir });
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/stop it before restoring/);
    } finally {
      await restored.stop();
    }
  });

  it('refuses a backup made with another secret key, and a database that already holds data', async () => {
    const first = await startAllInOne();
    scratch.push(first.dataDir);
    const file = join(first.dataDir, 'copy.backup');
    try {
      await createAccount(first.gateways[0]!, first.adminToken);
      expect((await runCli(['backup', file], { JUMBE_DATA_DIR: first.dataDir })).code).toBe(0);
    } finally {
      await first.processes[0]!.stop();
    }
    const other = await runCli(['restore', file], {
      JUMBE_DATA_DIR: await mkdtemp(join(tmpdir(), 'jumbe-restored-')).then(
        (dir) => (scratch.push(dir), dir),
      ),
      JUMBE_SECRET_KEY: 'another-secret-key-of-at-least-32-characters',
    });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/different JUMBE_SECRET_KEY/);

    const over = await runCli(['restore', file], { JUMBE_DATA_DIR: first.dataDir });
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/already holds data/);
  });
});
