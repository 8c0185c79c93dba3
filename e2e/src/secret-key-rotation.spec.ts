import { apiClient, RecordingReceiver, ServiceProcess } from '@jumbe/testing';
import { verifyDelivery } from '@jumbe/webhook-receiver';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from './support/cli-runner';
import { createAccount } from './support/operator';
import { eventually, linkSession } from './support/sandbox-helpers';
import { startAllInOne } from './support/topology';

/**
 * `jumbe secret-key rotate` on an all-in-one (docs/operations.md): refused while Jumbe runs; once
 * stopped, the stored secrets move to a new secret.key and the restarted process opens them (the
 * webhook keeps signing with the secret the customer has; sessions are not linked again).
 */
describe('jumbe secret-key rotate', () => {
  let receiver: RecordingReceiver;
  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
  });
  afterAll(() => receiver?.close());

  it('re-encrypts the stored secrets under a new key that the restarted all-in-one uses', async () => {
    const first = await startAllInOne({ JUMBE_ALLOW_PRIVATE_NETWORKS: 'true' });
    const env = { JUMBE_DATA_DIR: first.dataDir };
    try {
      const api = first.gateways[0]!;
      const account = await createAccount(api, first.adminToken);
      await linkSession(api, account.key);
      const { secret } = (
        await api.patch('/api/v1/webhook', { key: account.key, body: { url: `${receiver.url}/rotated` } })
      ).body;

      const refused = await runCli(['secret-key', 'rotate'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/services are connected to the database: all-in-one/);

      await first.processes[0]!.stop();
      const oldKey = await readFile(join(first.dataDir, 'secret.key'), 'utf8');
      const rotated = await runCli(['--json', 'secret-key', 'rotate'], env);
      expect({ code: rotated.code, stderr: rotated.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(rotated.stdout).resealed).toEqual(
        expect.arrayContaining([
          { table: 'webhooks', column: 'secret_ciphertext', rows: 1 },
          // The sandbox session's kept link (issue 31), sealed like any credential.
          { table: 'network_credentials', column: 'value', rows: 1 },
        ]),
      );
      const newKey = await readFile(join(first.dataDir, 'secret.key'), 'utf8');
      expect(newKey).not.toBe(oldKey);
      expect(await readFile(join(first.dataDir, 'secret.key.previous'), 'utf8')).toBe(oldKey);

      const restarted = await ServiceProcess.start(
        'all-in-one',
        {
          JUMBE_DATA_DIR: first.dataDir,
          JUMBE_ADMIN_TOKEN: first.adminToken,
          JUMBE_NETWORK: 'sandbox',
          JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
        },
        { timeoutMs: 120_000 },
      );
      try {
        const again = apiClient(restarted.url);
        const tested = await again.post('/api/v1/webhook/test', { key: account.key });
        expect(tested.body.data.delivery.status).toBe('success');
        const [request] = receiver.at('/rotated');
        expect(
          verifyDelivery({ body: request!.raw, headers: request!.headers as Record<string, string>, secret }),
        ).toMatchObject({ deliveryId: tested.body.data.delivery.id });
        const sessions = await again.get('/api/v1/sessions', { key: account.key });
        expect(sessions.body.data).toHaveLength(1);
        // Its link opens under the new key: the session is back without being linked again.
        const status = await eventually(
          () => again.get('/api/v1/session/status', { key: account.key }),
          (response) => response.body?.data?.state === 'connected',
        );
        expect(status.body.data.state).toBe('connected');
      } finally {
        await restarted.stop();
      }
    } finally {
      await first.processes[0]!.stop();
      await rm(first.dataDir, { recursive: true, force: true });
    }
  });
});
