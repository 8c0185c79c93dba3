import type { ApiClient } from '@jumbe/testing';
import { expectError } from './support/expect-error';
import { createAccount, type TestAccount } from './support/operator';
import { eventually } from './support/sandbox-helpers';
import { startAllInOne, type Topology } from './support/topology';

describe('customer API keys (/keys) on the all-in-one process', () => {
  let topology: Topology;
  let api: ApiClient;
  let alice: TestAccount;
  let bob: TestAccount;

  beforeAll(async () => {
    topology = await startAllInOne();
    api = topology.gateways[0];
    alice = await createAccount(api, topology.adminToken);
    bob = await createAccount(api, topology.adminToken);
  });
  afterAll(() => topology?.stop());

  it('creates a key shown once, lists it without the secret, and the new key works', async () => {
    const created = await api.post('/api/v1/keys', { key: alice.key, body: { name: 'ci', scope: 'read' } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^\S{20,}$/);
    expect(created.body.data).toEqual(
      expect.objectContaining({ name: 'ci', scope: 'read', revokedAt: null, prefix: expect.any(String) }),
    );
    expect(created.body.key.startsWith(created.body.data.prefix)).toBe(true);

    const listed = await api.get('/api/v1/keys', { key: alice.key });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((key: { id: string }) => key.id).sort()).toEqual(
      [alice.keyId, created.body.data.id].sort(),
    );
    expect(listed.text).not.toContain(created.body.key);

    expect(created.body.data.lastUsedAt).toBeNull();
    const usage = await api.get('/api/v1/usage', { key: created.body.key });
    expect(usage.status).toBe(200);
    const afterUse = await eventually(
      () => api.get('/api/v1/keys', { key: alice.key }),
      (response) =>
        response.body.data.find((key: { id: string }) => key.id === created.body.data.id)?.lastUsedAt,
    );
    const used = afterUse.body.data.find((key: { id: string }) => key.id === created.body.data.id);
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.data.createdAt));
  });

  it('revokes a key, after which it is refused', async () => {
    const created = await api.post('/api/v1/keys', { key: alice.key, body: { scope: 'full' } });
    expect((await api.get('/api/v1/usage', { key: created.body.key })).status).toBe(200);
    const revoked = await api.delete(`/api/v1/keys/${created.body.data.id}`, { key: alice.key });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revokedAt).toEqual(expect.any(String));
    expectError(await api.get('/api/v1/usage', { key: created.body.key }), 401, 'unauthorized');
  });

  it("never lists or revokes another account's keys", async () => {
    const listed = await api.get('/api/v1/keys', { key: bob.key });
    expect(listed.body.data.map((key: { id: string }) => key.id)).toEqual([bob.keyId]);
    expectError(await api.delete(`/api/v1/keys/${alice.keyId}`, { key: bob.key }), 404, 'not_found');
    expect((await api.get('/api/v1/usage', { key: alice.key })).status).toBe(200);
  });

  it('refuses a read key, even for listing', async () => {
    const read = await api.post('/api/v1/keys', { key: alice.key, body: { scope: 'read' } });
    expectError(await api.get('/api/v1/keys', { key: read.body.key }), 403, 'forbidden');
    expectError(await api.post('/api/v1/keys', { key: read.body.key, body: {} }), 403, 'forbidden');
  });

  it('rejects a bad scope with a validation error', async () => {
    expectError(
      await api.post('/api/v1/keys', { key: alice.key, body: { scope: 'admin' } }),
      400,
      'validation_error',
    );
  });

  it('returns the API hits of each day of the cycle, summing to the cycle counter', async () => {
    const carol = await createAccount(api, topology.adminToken);
    for (let i = 0; i < 4; i += 1)
      expect((await api.get('/api/v1/sessions', { key: carol.key })).status).toBe(200);
    const usage = await api.get('/api/v1/usage', { key: carol.key });
    expect(usage.status).toBe(200);
    const { hitsPerDay, apiHits, periodStart } = usage.body.data as {
      hitsPerDay: Array<{ date: string; apiHits: number }>;
      apiHits: number;
      periodStart: string;
    };
    const today = new Date().toISOString().slice(0, 10);
    expect(hitsPerDay[0]!.date).toBe(periodStart.slice(0, 10));
    expect(hitsPerDay.at(-1)!.date).toBe(today);
    expect(hitsPerDay).toHaveLength(new Date().getUTCDate());
    // Every hit of the new account is today's, the /usage request itself included.
    expect(apiHits).toBe(5);
    expect(hitsPerDay.at(-1)!.apiHits).toBe(5);
    expect(hitsPerDay.slice(0, -1).every((day) => day.apiHits === 0)).toBe(true);
  });
});
