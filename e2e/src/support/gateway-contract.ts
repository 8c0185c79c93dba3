import type { ApiClient } from '@jumbe/testing';
import { createAccount, createPlan, type TestAccount } from './operator';
import type { Topology } from './topology';
import { expectError } from './expect-error';

/**
 * The gateway's account-level contract (CONTRACT §1–3, §7, §8), run against any topology: the
 * all-in-one process and the distributed gateways must behave identically.
 */
export function describeGatewayContract(start: () => Promise<Topology>): void {
  let topology: Topology;
  let api: ApiClient;
  let admin: string;

  beforeAll(async () => {
    topology = await start();
    api = topology.gateways[0]!;
    admin = topology.adminToken;
  });
  afterAll(() => topology?.stop());

  describe('status, health and docs (no key)', () => {
    it.each(['/', '/api/v1'])('serves the status document at %s', async (path) => {
      const response = await api.get(path);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        service: 'jumbe',
        status: 'ok',
        baseUrl: `${api.baseUrl}/api/v1`,
      });
      for (const operation of [
        'health',
        'startSession',
        'getStatus',
        'getQr',
        'sendText',
        'sendMedia',
        'logout',
      ]) {
        expect(response.body.docs[operation]).toMatch(/^(GET|POST|PATCH|DELETE) \/api\/v1\//);
      }
    });

    it('reports every dependency as ok', async () => {
      const response = await api.get('/api/v1/health');
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        status: 'ok',
        checks: { database: 'ok', bus: 'ok', coordination: 'ok' },
      });
      expect(response.body.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(typeof response.body.uptimeSeconds).toBe('number');
    });

    it('publishes an OpenAPI 3.1 document covering every contract route', async () => {
      const response = await api.get('/api/v1/openapi.json');
      expect(response.status).toBe(200);
      expect(response.body.openapi).toBe('3.1.0');
      const operations = Object.entries(response.body.paths as Record<string, object>).flatMap(
        ([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(operations).toEqual(
        expect.arrayContaining([
          'GET /api/v1/health',
          'GET /api/v1/sessions',
          'POST /api/v1/session/start',
          'GET /api/v1/session/status',
          'GET /api/v1/session/qr',
          'POST /api/v1/session/pairing-code',
          'POST /api/v1/session/logout',
          'DELETE /api/v1/session',
          'POST /api/v1/messages/text',
          'POST /api/v1/messages/media',
          'POST /api/v1/messages/interactive',
          'GET /api/v1/messages/failures',
          'PATCH /api/v1/webhook',
          'GET /api/v1/webhook',
          'DELETE /api/v1/webhook',
          'POST /api/v1/webhook/test',
          'POST /api/v1/webhook/deliveries/{id}/redeliver',
          'GET /api/v1/usage',
          'POST /api/v1/admin/plans',
          'POST /api/v1/admin/accounts/{id}/keys',
          'DELETE /api/v1/admin/accounts/{id}/keys/{keyId}',
        ]),
      );
      // Generated from the validating schemas: the interactive body lists its seven action types.
      const interactive = JSON.stringify(
        response.body.paths['/api/v1/messages/interactive'].post.requestBody,
      );
      for (const type of ['reply', 'url', 'copy', 'call', 'list', 'catalog', 'location_request']) {
        expect(interactive).toContain(`"${type}"`);
      }
    });

    it('serves human docs at /docs without reaching outside the machine', async () => {
      const response = await fetch(`${api.baseUrl}/docs`, { redirect: 'follow' });
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toContain('swagger');
      expect(html).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)\./);
    });

    it('answers unknown routes with the error envelope', async () => {
      expectError(await api.get('/api/v1/nothing-here'), 404, 'not_found');
      expectError(await api.post('/nope', { body: {} }), 404, 'not_found');
    });
  });

  describe('operator API', () => {
    it('requires the admin token', async () => {
      expectError(await api.get('/api/v1/admin/plans'), 401, 'unauthorized');
      expectError(
        await api.get('/api/v1/admin/plans', { bearer: 'wrong-token-of-some-length' }),
        401,
        'unauthorized',
      );
      // A customer key is not an admin token.
      const account = await createAccount(api, admin);
      expectError(await api.get('/api/v1/admin/plans', { bearer: account.key }), 401, 'unauthorized');
    });

    it('creates and lists plans, refusing duplicates', async () => {
      const name = await createPlan(api, admin, 42, 2);
      const list = await api.get('/api/v1/admin/plans', { bearer: admin });
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual(
        expect.arrayContaining([expect.objectContaining({ name, monthlyApiHits: 42, maxSessions: 2 })]),
      );
      const again = await api.post('/api/v1/admin/plans', {
        bearer: admin,
        body: { name, monthlyApiHits: 1, maxSessions: 1 },
      });
      expectError(again, 409, 'conflict');
    });

    it('validates plan input and lists every problem with its path', async () => {
      const response = await api.post('/api/v1/admin/plans', {
        bearer: admin,
        body: { name: '', monthlyApiHits: 'many', maxSesions: 3 },
      });
      expectError(response, 400, 'validation_error');
      const paths = response.body.error.details.map((detail: { path: string }) => detail.path).sort();
      expect(paths).toEqual(['/maxSesions', '/maxSessions', '/monthlyApiHits', '/name']);
      for (const detail of response.body.error.details) expect(detail.problem.length).toBeGreaterThan(3);
    });

    it('rejects bodies that are not JSON, do not parse, or are too large', async () => {
      expectError(
        await api.post('/api/v1/admin/plans', {
          bearer: admin,
          rawBody: 'name=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
        415,
        'unsupported_media_type',
      );
      expectError(
        await api.post('/api/v1/admin/plans', {
          bearer: admin,
          rawBody: 'hello',
          headers: { 'content-type': 'text/plain' },
        }),
        415,
        'unsupported_media_type',
      );
      expectError(
        await api.post('/api/v1/admin/plans', {
          bearer: admin,
          rawBody: '{"name": "x",',
          headers: { 'content-type': 'application/json' },
        }),
        400,
        'invalid_json',
      );
      expectError(
        await api.post('/api/v1/admin/plans', {
          bearer: admin,
          rawBody: '[1,2]',
          headers: { 'content-type': 'application/json' },
        }),
        400,
        'validation_error',
      );
      const huge = JSON.stringify({ name: 'x'.repeat(1_100_000), monthlyApiHits: 1, maxSessions: 1 });
      expectError(
        await api.post('/api/v1/admin/plans', {
          bearer: admin,
          rawBody: huge,
          headers: { 'content-type': 'application/json' },
        }),
        413,
        'payload_too_large',
      );
    });

    it('creates, reads, lists and updates accounts', async () => {
      const planName = await createPlan(api, admin, 10);
      const created = await api.post('/api/v1/admin/accounts', {
        bearer: admin,
        body: { name: 'Duka', plan: planName },
      });
      expect(created.status).toBe(201);
      expect(created.body.data).toEqual({
        id: expect.any(String),
        name: 'Duka',
        plan: planName,
        suspended: false,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      const id = created.body.data.id;
      expect((await api.get(`/api/v1/admin/accounts/${id}`, { bearer: admin })).body.data).toEqual(
        created.body.data,
      );
      expect((await api.get('/api/v1/admin/accounts', { bearer: admin })).body.data).toEqual(
        expect.arrayContaining([created.body.data]),
      );
      const other = await createPlan(api, admin, 20);
      const updated = await api.patch(`/api/v1/admin/accounts/${id}`, {
        bearer: admin,
        body: { plan: other, suspended: true },
      });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toMatchObject({ plan: other, suspended: true });
    });

    it('explains unknown plans and accounts', async () => {
      const noPlan = await api.post('/api/v1/admin/accounts', {
        bearer: admin,
        body: { name: 'x', plan: 'no-such-plan' },
      });
      expectError(noPlan, 400, 'validation_error');
      expect(noPlan.body.error.details).toEqual([expect.objectContaining({ path: '/plan' })]);
      expectError(
        await api.get('/api/v1/admin/accounts/00000000-0000-4000-8000-000000000000', { bearer: admin }),
        404,
        'not_found',
      );
      expectError(await api.get('/api/v1/admin/accounts/not-a-uuid', { bearer: admin }), 404, 'not_found');
      expectError(
        await api.patch('/api/v1/admin/accounts/not-a-uuid', { bearer: admin, body: { suspended: true } }),
        404,
        'not_found',
      );
      expectError(
        await api.post('/api/v1/admin/accounts/not-a-uuid/keys', { bearer: admin, body: {} }),
        404,
        'not_found',
      );
      expectError(
        await api.patch('/api/v1/admin/accounts/not-a-uuid', { bearer: admin, body: { suspended: 'yes' } }),
        400,
        'validation_error',
      );
    });

    it('creates keys shown once, lists them without secrets, and revokes them', async () => {
      const account = await createAccount(api, admin);
      expect(account.key).toMatch(/^jmb_[A-Za-z0-9_-]{43}$/);
      const list = await api.get(`/api/v1/admin/accounts/${account.accountId}/keys`, { bearer: admin });
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([
        {
          id: account.keyId,
          name: 'test',
          scope: 'full',
          prefix: account.key.slice(0, 12),
          createdAt: expect.any(String),
          revokedAt: null,
          lastUsedAt: null,
        },
      ]);
      expect(list.text).not.toContain(account.key);
      expectError(
        await api.post(`/api/v1/admin/accounts/${account.accountId}/keys`, {
          bearer: admin,
          body: { scope: 'admin' },
        }),
        400,
        'validation_error',
      );

      expect((await api.get('/api/v1/usage', { key: account.key })).status).toBe(200);
      const revoked = await api.delete(`/api/v1/admin/accounts/${account.accountId}/keys/${account.keyId}`, {
        bearer: admin,
      });
      expect(revoked.status).toBe(200);
      expect(revoked.body.data.revokedAt).toEqual(expect.any(String));
      expectError(await api.get('/api/v1/usage', { key: account.key }), 401, 'unauthorized');
      expectError(
        await api.delete(
          `/api/v1/admin/accounts/${account.accountId}/keys/00000000-0000-4000-8000-000000000000`,
          { bearer: admin },
        ),
        404,
        'not_found',
      );
    });

    it('does not revoke a key through another account', async () => {
      const a = await createAccount(api, admin);
      const b = await createAccount(api, admin);
      expectError(
        await api.delete(`/api/v1/admin/accounts/${b.accountId}/keys/${a.keyId}`, { bearer: admin }),
        404,
        'not_found',
      );
      expect((await api.get('/api/v1/usage', { key: a.key })).status).toBe(200);
    });
  });

  describe('customer authentication and metering', () => {
    let account: TestAccount;
    beforeAll(async () => {
      account = await createAccount(api, admin, { monthlyApiHits: 1_000, maxSessions: 3 });
    });

    it('accepts the key in x-api-key and in Authorization: Bearer', async () => {
      expect((await api.get('/api/v1/usage', { key: account.key })).status).toBe(200);
      expect((await api.get('/api/v1/usage', { bearer: account.key })).status).toBe(200);
    });

    it.each([
      ['no key', {}],
      ['an unknown key', { key: `jmb_${'A'.repeat(43)}` }],
      ['a malformed key', { key: 'hello' }],
      ['an empty bearer', { headers: { authorization: 'Bearer ' } }],
      ['basic auth', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }],
    ])('answers 401 to %s', async (_, options) => {
      const response = await api.get('/api/v1/usage', options);
      expectError(response, 401, 'unauthorized');
      expect(response.headers.get('x-quota-limit')).toBeNull();
    });

    it('checks credentials before anything else is wrong with the request', async () => {
      const oversized = 'x'.repeat(1_200_000);
      for (const rawBody of ['{oops', oversized]) {
        expectError(
          await api.post('/api/v1/admin/plans', {
            bearer: 'wrong-token-of-some-length',
            rawBody,
            headers: { 'content-type': 'text/plain' },
          }),
          401,
          'unauthorized',
        );
      }
    });

    it('reports usage with quota headers, counting the request itself', async () => {
      const first = await api.get('/api/v1/usage', { key: account.key });
      const second = await api.get('/api/v1/usage', { key: account.key });
      expect(second.status).toBe(200);
      expect(second.body.data).toEqual({
        plan: account.planName,
        periodStart: expect.stringMatching(/-01T00:00:00\.000Z$/),
        periodEnd: expect.stringMatching(/-01T00:00:00\.000Z$/),
        apiHits: first.body.data.apiHits + 1,
        apiHitLimit: 1_000,
        messagesSent: 0,
        sendFailures: 0,
        sessions: 0,
        sessionLimit: 3,
        // Extension: one entry per UTC day of the cycle so far, together the cycle's hits.
        hitsPerDay: expect.any(Array),
      });
      const perDay = second.body.data.hitsPerDay as { date: string; apiHits: number }[];
      expect(perDay.at(-1)?.date).toBe(new Date().toISOString().slice(0, 10));
      expect(perDay.reduce((sum, day) => sum + day.apiHits, 0)).toBeLessThanOrEqual(second.body.data.apiHits);
      expect(second.headers.get('x-quota-limit')).toBe('1000');
      expect(second.headers.get('x-quota-remaining')).toBe(String(1_000 - second.body.data.apiHits));
      expect(second.headers.get('x-quota-reset')).toBe(second.body.data.periodEnd);
    });

    it('refuses suspended accounts with 403 before counting quota', async () => {
      const suspended = await createAccount(api, admin);
      await api.patch(`/api/v1/admin/accounts/${suspended.accountId}`, {
        bearer: admin,
        body: { suspended: true },
      });
      const refused = await api.get('/api/v1/usage', { key: suspended.key });
      expectError(refused, 403, 'account_suspended');
      expect(refused.headers.get('x-quota-remaining')).toBe('100000');
      await api.patch(`/api/v1/admin/accounts/${suspended.accountId}`, {
        bearer: admin,
        body: { suspended: false },
      });
      const back = await api.get('/api/v1/usage', { key: suspended.key });
      expect(back.status).toBe(200);
      expect(back.body.data.apiHits).toBe(1);
    });

    it('answers 402 at the monthly cap, with remaining 0, without counting refused hits', async () => {
      const capped = await createAccount(api, admin, { monthlyApiHits: 3 });
      for (let i = 0; i < 3; i += 1)
        expect((await api.get('/api/v1/usage', { key: capped.key })).status).toBe(200);
      for (let i = 0; i < 3; i += 1) {
        const refused = await api.get('/api/v1/usage', { key: capped.key });
        expectError(refused, 402, 'monthly_limit_reached');
        expect(refused.headers.get('x-quota-remaining')).toBe('0');
        expect(refused.headers.get('x-quota-limit')).toBe('3');
        expect(refused.headers.get('x-quota-reset')).toMatch(/-01T00:00:00\.000Z$/);
      }
      // Upgrading lifts the block at once, and the refused requests were not counted.
      const bigger = await createPlan(api, admin, 10);
      await api.patch(`/api/v1/admin/accounts/${capped.accountId}`, {
        bearer: admin,
        body: { plan: bigger },
      });
      const after = await api.get('/api/v1/usage', { key: capped.key });
      expect(after.status).toBe(200);
      expect(after.body.data.apiHits).toBe(4);
    });

    it('keeps accounts apart: one account at its cap does not affect another', async () => {
      const capped = await createAccount(api, admin, { monthlyApiHits: 1 });
      const other = await createAccount(api, admin, { monthlyApiHits: 5 });
      await api.get('/api/v1/usage', { key: capped.key });
      expectError(await api.get('/api/v1/usage', { key: capped.key }), 402, 'monthly_limit_reached');
      const response = await api.get('/api/v1/usage', { key: other.key });
      expect(response.status).toBe(200);
      expect(response.body.data.apiHits).toBe(1);
    });

    it('lets exactly the remaining hits through under concurrency', async () => {
      const capped = await createAccount(api, admin, { monthlyApiHits: 25 });
      const responses = await Promise.all(
        Array.from({ length: 80 }, (_, i) =>
          topology.gateways[i % topology.gateways.length]!.get('/api/v1/usage', { key: capped.key }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(25);
      expect(statuses.filter((status) => status === 402)).toHaveLength(55);
    });

    it('lets read keys use GET routes', async () => {
      const reader = await createAccount(api, admin, { scope: 'read' });
      expect((await api.get('/api/v1/usage', { key: reader.key })).status).toBe(200);
    });
  });
}
