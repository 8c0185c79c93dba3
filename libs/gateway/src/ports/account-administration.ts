import type {
  accountSchema,
  apiKeySchema,
  CreateAccountInput,
  CreateKeyInput,
  CreatePlanInput,
  planSchema,
  UpdateAccountInput,
} from '@jumbe/contracts';
import type { z } from 'zod';

type PlanView = z.output<typeof planSchema>;
type AccountView = z.output<typeof accountSchema>;
type ApiKeyView = z.output<typeof apiKeySchema>;

/**
 * The operator's operations on plans, accounts and keys (CONTRACT §8) that the admin API and
 * `/keys` expose, answering in the response shapes (OperatorService of @jumbe/operator satisfies it).
 */
export abstract class AccountAdministration {
  abstract createPlan(input: CreatePlanInput): Promise<PlanView>;
  abstract listPlans(): Promise<PlanView[]>;
  abstract updatePlan(
    ref: string,
    changes: { monthlyApiHits?: number; maxSessions?: number },
  ): Promise<PlanView>;
  abstract createAccount(input: CreateAccountInput): Promise<AccountView>;
  abstract listAccounts(): Promise<AccountView[]>;
  abstract getAccount(id: string): Promise<AccountView>;
  abstract updateAccount(id: string, input: UpdateAccountInput): Promise<AccountView>;
  abstract createKey(accountId: string, input: CreateKeyInput): Promise<{ data: ApiKeyView; key: string }>;
  abstract listKeys(accountId: string): Promise<ApiKeyView[]>;
  abstract revokeKey(accountId: string, keyId: string): Promise<ApiKeyView>;
}
