import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createAccount } from './support/operator';
import { startAllInOne } from './support/topology';

describe('all-in-one process lifecycle', () => {
  it('stops cleanly on SIGTERM: exit code 0, usage flushed, embedded database stopped, data kept', async () => {
    const first = await startAllInOne();
    const api = first.gateways[0]!;
    const account = await createAccount(api, first.adminToken);
    for (let i = 0; i < 3; i += 1) await api.get('/api/v1/usage', { key: account.key });
    expect(existsSync(join(first.dataDir, 'embedded-postgres.json'))).toBe(true);
    expect(await first.processes[0]!.stop('SIGTERM')).toBe(0);
    expect(existsSync(join(first.dataDir, 'embedded-postgres.json'))).toBe(false);

    // The same data directory starts again with the account, its key and its usage intact.
    const second = await startAllInOne({
      JUMBE_DATA_DIR: first.dataDir,
      JUMBE_ADMIN_TOKEN: first.adminToken,
    });
    try {
      const usage = await second.gateways[0]!.get('/api/v1/usage', { key: account.key });
      expect(usage.status).toBe(200);
      expect(usage.body.data.apiHits).toBe(4);
    } finally {
      await second.stop();
      await rm(first.dataDir, { recursive: true, force: true });
    }
  });
});
