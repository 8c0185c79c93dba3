import type { Account, ApiKey, Plan } from '@jumbe/domain';

/** Operator-facing shapes (CONTRACT §8): ISO times, plan by name, never a key hash. */
export interface PlanView {
  id: string;
  name: string;
  monthlyApiHits: number;
  maxSessions: number;
  createdAt: string;
}
export interface AccountView {
  id: string;
  name: string;
  plan: string;
  suspended: boolean;
  createdAt: string;
}
export interface ApiKeyView {
  id: string;
  name: string | null;
  scope: 'full' | 'read';
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export const planView = (plan: Plan): PlanView => ({
  id: plan.id,
  name: plan.name,
  monthlyApiHits: plan.monthlyApiHits,
  maxSessions: plan.maxSessions,
  createdAt: plan.createdAt.toISOString(),
});

export const accountView = (account: Account, planName: string): AccountView => ({
  id: account.id,
  name: account.name,
  plan: planName,
  suspended: account.suspended,
  createdAt: account.createdAt.toISOString(),
});

export const apiKeyView = (key: ApiKey): ApiKeyView => ({
  id: key.id,
  name: key.name,
  scope: key.scope,
  prefix: key.prefix,
  createdAt: key.createdAt.toISOString(),
  revokedAt: key.revokedAt ? key.revokedAt.toISOString() : null,
  lastUsedAt: key.lastUsedAt ? key.lastUsedAt.toISOString() : null,
});
