import { ServiceProcess, apiClient } from '@jumbe/testing';
import Redis from 'ioredis';
import { Client } from 'pg';
import { describeGatewayContract } from './support/gateway-contract';
import { describeSessionContract } from './support/session-contract';
import { expectError } from './support/expect-error';
import { createAccount } from './support/operator';
import { eventually } from './support/sandbox-helpers';
import { type DistributedTopology, REDIS_URL, startDistributed } from './support/topology';

describe('distributed: two gateways on the real PostgreSQL, Redis and NATS', () => {
  describeGatewayContract(() => startDistributed(2));
});

describe('distributed: sessions and messages with two gateways and two workers', () => {
  describeSessionContract(() => startDistributed(2, {}, 2));
});

describe('distributed: coordination between gateways', () => {
  let topology: DistributedTopology;
  let redis: Redis;

  beforeAll(async () => {
    topology = await startDistributed(2);
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    redis?.disconnect();
    await topology?.stop();
  });

  it('stops a revoked key on every gateway within one second', async () => {
    const [a, b] = topology.gateways as [ReturnType<typeof apiClient>, ReturnType<typeof apiClient>];
    const account = await createAccount(a, topology.adminToken);
    // Warm both gateways' key caches.
    expect((await a.get('/api/v1/usage', { key: account.key })).status).toBe(200);
    expect((await b.get('/api/v1/usage', { key: account.key })).status).toBe(200);
    const revokedAt = Date.now();
    await a.delete(`/api/v1/admin/accounts/${account.accountId}/keys/${account.keyId}`, {
      bearer: topology.adminToken,
    });
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 1_000) {
      status = (await b.get('/api/v1/usage', { key: account.key })).status;
    }
    expect(status).toBe(401);
  });

  it('suspends an account on every gateway at once', async () => {
    const [a, b] = topology.gateways as [ReturnType<typeof apiClient>, ReturnType<typeof apiClient>];
    const account = await createAccount(a, topology.adminToken);
    expect((await b.get('/api/v1/usage', { key: account.key })).status).toBe(200);
    await a.patch(`/api/v1/admin/accounts/${account.accountId}`, {
      bearer: topology.adminToken,
      body: { suspended: true },
    });
    const refused = await eventually(
      () => b.get('/api/v1/usage', { key: account.key }),
      (response) => response.status !== 200,
    );
    expectError(refused, 403, 'account_suspended');
  });

  it('keeps usage when Redis loses its counters (persisted to PostgreSQL)', async () => {
    const api = topology.gateways[0]!;
    const account = await createAccount(api, topology.adminToken, { monthlyApiHits: 50 });
    for (let i = 0; i < 7; i += 1) await api.get('/api/v1/usage', { key: account.key });
    // Counters are written behind (about once a second): wait until PostgreSQL holds all seven.
    const db = new Client({ connectionString: topology.env['JUMBE_DATABASE_URL'] });
    await db.connect();
    try {
      await eventually(
        () => db.query(`SELECT api_hits FROM usage_counters WHERE account_id = $1`, [account.accountId]),
        (result) => Number(result.rows[0]?.api_hits ?? 0) >= 7,
      );
    } finally {
      await db.end();
    }
    const keys = await redis.keys(`${topology.deployment}/jumbe:usage:{${account.accountId}}:*`);
    expect(keys).toHaveLength(1);
    await redis.del(...keys);
    const after = await topology.gateways[1]!.get('/api/v1/usage', { key: account.key });
    expect(after.status).toBe(200);
    expect(after.body.data.apiHits).toBe(8);
  });

  it('refuses a read key every changing method: DELETE /webhook is 403 forbidden and the webhook stays', async () => {
    const [a, b] = topology.gateways as [ReturnType<typeof apiClient>, ReturnType<typeof apiClient>];
    const account = await createAccount(a, topology.adminToken);
    // A public address literal: the egress policy accepts it without a DNS lookup.
    const saved = await a.patch('/api/v1/webhook', {
      key: account.key,
      body: { url: 'https://93.184.215.14/jumbe-hook' },
    });
    expect(saved.status).toBe(200);
    const read = await a.post('/api/v1/keys', { key: account.key, body: { scope: 'read' } });
    expect(read.status).toBe(201);
    const before = await b.get('/api/v1/webhook', { key: read.body.key });
    expect(before.status).toBe(200);
    expect(before.body.data.url).not.toBeNull();

    expectError(await b.delete('/api/v1/webhook', { key: read.body.key }), 403, 'forbidden');
    expectError(await b.delete('/api/v1/session', { key: read.body.key }), 403, 'forbidden');
    expectError(
      await b.patch('/api/v1/webhook', { key: read.body.key, body: { enabled: false } }),
      403,
      'forbidden',
    );
    const after = await a.get('/api/v1/webhook', { key: account.key });
    expect(after.body.data).toEqual(before.body.data);
  });

  it('answers 429 with Retry-After when the operator sets a per-key rate limit', async () => {
    const limited = await ServiceProcess.start(
      'gateway',
      { ...topology.env, JUMBE_RATE_LIMIT_PER_MINUTE: '3' },
      { name: 'rate-limited' },
    );
    try {
      const api = apiClient(limited.url);
      const account = await createAccount(api, topology.adminToken);
      const statuses = [];
      for (let i = 0; i < 5; i += 1)
        statuses.push((await api.get('/api/v1/usage', { key: account.key })).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const refused = await api.get('/api/v1/usage', { key: account.key });
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });

  it('refuses to start on a database migrated by a newer release', async () => {
    const client = new Client({ connectionString: topology.env['JUMBE_DATABASE_URL'] });
    await client.connect();
    try {
      const table = (await client.query(`SELECT to_regclass('public.migrations') AS t`)).rows[0].t;
      expect(table).not.toBeNull();
      await client.query(
        `INSERT INTO migrations ("timestamp", name) VALUES (9999999999999, 'FromTheFuture9999999999999')`,
      );
      // It stops by itself (not a start-up timeout, not any crash) and says why, naming the migration.
      // A generous wait: on a loaded machine a process can take a minute to reach its first log line.
      const refusal = await ServiceProcess.start('gateway', topology.env, { timeoutMs: 150_000 }).then(
        () => null,
        (error: Error) => error.message,
      );
      expect(refusal).toMatch(/^gateway exited early \(code [1-9]/);
      expect(refusal).toContain('The database schema is newer than this release of Jumbe');
      expect(refusal).toContain('FromTheFuture9999999999999');
    } finally {
      await client.query(`DELETE FROM migrations WHERE name = 'FromTheFuture9999999999999'`);
      await client.end();
    }
  }, 200_000);
});
