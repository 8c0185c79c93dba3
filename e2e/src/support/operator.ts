import type { ApiClient } from '@jumbe/testing';
import { randomBytes } from 'node:crypto';

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

export interface TestAccount {
  accountId: string;
  key: string;
  keyId: string;
  planName: string;
}

/** Sets up a plan, an account on it and a key through the admin API, asserting each step. */
export async function createAccount(
  api: ApiClient,
  adminToken: string,
  plan: { monthlyApiHits?: number; maxSessions?: number; scope?: 'full' | 'read' } = {},
): Promise<TestAccount> {
  const planName = unique('plan');
  const created = await api.post('/api/v1/admin/plans', {
    bearer: adminToken,
    body: {
      name: planName,
      monthlyApiHits: plan.monthlyApiHits ?? 100_000,
      maxSessions: plan.maxSessions ?? 5,
    },
  });
  if (created.status !== 201) throw new Error(`plan: ${created.status} ${created.text}`);
  const account = await api.post('/api/v1/admin/accounts', {
    bearer: adminToken,
    body: { name: unique('acct'), plan: planName },
  });
  if (account.status !== 201) throw new Error(`account: ${account.status} ${account.text}`);
  const key = await api.post(`/api/v1/admin/accounts/${account.body.data.id}/keys`, {
    bearer: adminToken,
    body: { name: 'test', scope: plan.scope ?? 'full' },
  });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  return { accountId: account.body.data.id, key: key.body.key, keyId: key.body.data.id, planName };
}

export async function createPlan(
  api: ApiClient,
  adminToken: string,
  monthlyApiHits: number,
  maxSessions = 5,
): Promise<string> {
  const name = unique('plan');
  const response = await api.post('/api/v1/admin/plans', {
    bearer: adminToken,
    body: { name, monthlyApiHits, maxSessions },
  });
  if (response.status !== 201) throw new Error(`plan: ${response.status} ${response.text}`);
  return name;
}
