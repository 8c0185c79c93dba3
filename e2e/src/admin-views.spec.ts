import type { ApiClient } from '@jumbe/testing';
import { expectError } from './support/expect-error';
import { createAccount } from './support/operator';
import { startAllInOne, type Topology } from './support/topology';

/** What the operator view needs beyond CONTRACT §8: editing a plan, an account's usage and sessions. */
describe('operator: plan editing, account usage and sessions (all-in-one)', () => {
  let topology: Topology;
  let api: ApiClient;
  let admin: string;

  beforeAll(async () => {
    topology = await startAllInOne();
    api = topology.gateways[0];
    admin = topology.adminToken;
  });
  afterAll(() => topology?.stop());

  const planOf = async (name: string) =>
    (
      (await api.get('/api/v1/admin/plans', { bearer: admin })).body.data as Array<{
        id: string;
        name: string;
      }>
    ).find((plan) => plan.name === name)!;

  it('raises a plan cap, which takes effect at once for the accounts on it', async () => {
    const account = await createAccount(api, admin, { monthlyApiHits: 2 });
    expect((await api.get('/api/v1/sessions', { key: account.key })).status).toBe(200);
    expect((await api.get('/api/v1/sessions', { key: account.key })).status).toBe(200);
    expectError(await api.get('/api/v1/sessions', { key: account.key }), 402, 'monthly_limit_reached');

    const plan = await planOf(account.planName);
    const updated = await api.patch(`/api/v1/admin/plans/${plan.id}`, {
      bearer: admin,
      body: { monthlyApiHits: 10 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual(
      expect.objectContaining({ id: plan.id, name: account.planName, monthlyApiHits: 10, maxSessions: 5 }),
    );
    expect((await api.get('/api/v1/sessions', { key: account.key })).status).toBe(200);
    expect((await api.get('/api/v1/usage', { key: account.key })).body.data.apiHitLimit).toBe(10);
  });

  it('refuses an unknown plan, a renamed one, and a caller without the admin token', async () => {
    const account = await createAccount(api, admin);
    const plan = await planOf(account.planName);
    expectError(
      await api.patch('/api/v1/admin/plans/00000000-0000-4000-8000-000000000000', {
        bearer: admin,
        body: { maxSessions: 1 },
      }),
      404,
      'not_found',
    );
    expectError(
      await api.patch(`/api/v1/admin/plans/${plan.id}`, { bearer: admin, body: { name: 'other' } }),
      400,
      'validation_error',
    );
    expectError(
      await api.patch(`/api/v1/admin/plans/${plan.id}`, { bearer: admin, body: { maxSessions: -1 } }),
      400,
      'validation_error',
    );
    expectError(
      await api.patch(`/api/v1/admin/plans/${plan.id}`, { key: account.key, body: { maxSessions: 1 } }),
      401,
      'unauthorized',
    );
    expect((await planOf(account.planName)).id).toBe(plan.id);
  });

  it("shows an account's usage as the account sees it, and its sessions", async () => {
    const account = await createAccount(api, admin);
    const started = await api.post('/api/v1/session/start', {
      key: account.key,
      body: { sessionId: 'shop' },
    });
    expect(started.status).toBe(200);
    const own = (await api.get('/api/v1/usage', { key: account.key })).body.data;

    const usage = await api.get(`/api/v1/admin/accounts/${account.accountId}/usage`, { bearer: admin });
    expect(usage.status).toBe(200);
    // The admin read is not an API hit of the account.
    expect(usage.body.data).toEqual(own);
    expect(usage.body.data).toEqual(
      expect.objectContaining({ apiHits: 2, sessions: 1, plan: account.planName }),
    );

    const sessions = await api.get(`/api/v1/admin/accounts/${account.accountId}/sessions`, { bearer: admin });
    expect(sessions.status).toBe(200);
    expect(sessions.body.data).toEqual([expect.objectContaining({ sessionId: 'shop' })]);

    const missing = '00000000-0000-4000-8000-000000000000';
    expectError(
      await api.get(`/api/v1/admin/accounts/${missing}/usage`, { bearer: admin }),
      404,
      'not_found',
    );
    expectError(
      await api.get(`/api/v1/admin/accounts/${missing}/sessions`, { bearer: admin }),
      404,
      'not_found',
    );
    expectError(
      await api.get(`/api/v1/admin/accounts/${account.accountId}/usage`, { key: account.key }),
      401,
      'unauthorized',
    );
  });
});
