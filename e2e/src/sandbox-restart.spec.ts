import { rm } from 'node:fs/promises';
import type { ApiClient } from '@jumbe/testing';
import { createAccount, type TestAccount } from './support/operator';
import { eventually, linkSession } from './support/sandbox-helpers';
import { startAllInOne } from './support/topology';

type AllInOne = Awaited<ReturnType<typeof startAllInOne>>;

/**
 * Issue 31: `JUMBE_NETWORK=sandbox npm start`, restarted, left every sandbox session
 * `disconnected/logged_out` (the simulated network lived only in the process's memory). A linked
 * sandbox session must come back as a linked WhatsApp session does: from its stored credentials.
 */
describe('all-in-one on the sandbox network: linked sessions survive a restart', () => {
  let running: AllInOne | undefined;
  const scratch: string[] = [];

  afterAll(async () => {
    await running?.stop();
    await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('comes back connected with its number and sends, after SIGTERM and after SIGKILL; a logged-out one stays out', async () => {
    running = await startAllInOne();
    const { dataDir, adminToken } = running;
    scratch.push(dataDir);
    let api = gateway(running);
    const account = await createAccount(api, adminToken);
    const phone = await linkSession(api, account.key, 'shop');
    await linkSession(api, account.key, 'gone');
    expect(
      (await api.post('/api/v1/session/logout', { key: account.key, body: { sessionId: 'gone' } })).status,
    ).toBe(200);
    await sendsThrough(api, account, 'before any restart');

    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      await running.processes[0]?.stop(signal);
      scratch.push(running.dataDir);
      running = await startAllInOne({ JUMBE_DATA_DIR: dataDir, JUMBE_ADMIN_TOKEN: adminToken });
      api = gateway(running);

      const status = await eventually(
        () => api.get('/api/v1/session/status?sessionId=shop', { key: account.key }),
        (response) => response.body?.data?.state === 'connected',
      );
      expect(status.body.data).toMatchObject({
        sessionId: 'shop',
        state: 'connected',
        connected: true,
        phoneNumber: phone,
      });
      await sendsThrough(api, account, `after ${signal}`);

      const gone = await api.get('/api/v1/session/status?sessionId=gone', { key: account.key });
      expect(gone.body.data).toMatchObject({
        state: 'disconnected',
        reason: 'logged_out',
        phoneNumber: null,
      });
    }
  });
});

function gateway(topology: AllInOne): ApiClient {
  const api = topology.gateways[0];
  if (!api) throw new Error('the all-in-one has no gateway');
  return api;
}

/** A text from session "shop" reaches the sandbox network under the id the send returned. */
async function sendsThrough(api: ApiClient, account: TestAccount, text: string): Promise<void> {
  const sent = await api.post('/api/v1/messages/text', {
    key: account.key,
    body: { sessionId: 'shop', to: '254711111111', text },
  });
  expect(sent.status).toBe(200);
  const outbox = await api.get('/api/v1/sandbox/outbox?sessionId=shop&limit=1', { key: account.key });
  expect(outbox.body.data[0]).toMatchObject({ id: sent.body.data.key.id, type: 'text', content: { text } });
}
