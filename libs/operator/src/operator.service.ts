import {
  type AccessInvalidation,
  ACCESS_INVALIDATION_TOPIC,
  ApiError,
  type CreateAccountInput,
  type CreateKeyInput,
  type CreatePlanInput,
  encodeAccessInvalidation,
  type UpdateAccountInput,
  type UpdatePlanInput,
} from '@jumbe/contracts';
import type { InvalidationBus } from '@jumbe/coordination';
import { displayPrefix, generateApiKey, hashApiKey } from '@jumbe/domain';
import {
  AccountRepository,
  ApiKeyRepository,
  DuplicateNameError,
  PlanRepository,
  type Plan,
} from '@jumbe/persistence';
import type { DataSource } from 'typeorm';
import { type AccountView, accountView, type ApiKeyView, apiKeyView, type PlanView, planView } from './views';

/**
 * The operator's operations on plans, accounts and keys (CONTRACT §8), shared by the admin API and
 * the CLI so both behave identically. Changes that affect access are announced on the
 * invalidation bus, so every gateway drops its cached copy at once.
 */
export class OperatorService {
  private readonly plans: PlanRepository;
  private readonly accounts: AccountRepository;
  private readonly keys: ApiKeyRepository;

  constructor(
    dataSource: DataSource,
    private readonly invalidations: Pick<InvalidationBus, 'publish'>,
  ) {
    this.plans = new PlanRepository(dataSource);
    this.accounts = new AccountRepository(dataSource);
    this.keys = new ApiKeyRepository(dataSource);
  }

  async createPlan(input: CreatePlanInput): Promise<PlanView> {
    try {
      return planView(await this.plans.create(input));
    } catch (error) {
      if (error instanceof DuplicateNameError) {
        throw new ApiError('conflict', `A plan named "${input.name}" already exists.`);
      }
      throw error;
    }
  }

  async listPlans(): Promise<PlanView[]> {
    return (await this.plans.list()).map(planView);
  }

  /** Changes a plan's limits; every gateway drops its cached copy of the plan at once. */
  async updatePlan(id: string, input: UpdatePlanInput): Promise<PlanView> {
    const updated = await this.plans.update(id, input);
    if (!updated) throw new ApiError('not_found', `No plan with id "${id}".`);
    await this.announce({ v: 1, kind: 'plan', planId: id });
    return planView(updated);
  }

  async createAccount(input: CreateAccountInput): Promise<AccountView> {
    const plan = await this.planNamed(input.plan, '/plan');
    return accountView(await this.accounts.create({ name: input.name, planId: plan.id }), plan.name);
  }

  async listAccounts(): Promise<AccountView[]> {
    const [accounts, plans] = await Promise.all([this.accounts.list(), this.planNames()]);
    return accounts.map((account) => accountView(account, plans.get(account.planId) ?? ''));
  }

  async getAccount(id: string): Promise<AccountView> {
    const found = await this.accounts.findWithPlan(id);
    if (!found) throw accountNotFound(id);
    return accountView(found.account, found.plan.name);
  }

  async updateAccount(id: string, input: UpdateAccountInput): Promise<AccountView> {
    const plan = input.plan === undefined ? undefined : await this.planNamed(input.plan, '/plan');
    const updated = await this.accounts.update(id, { planId: plan?.id, suspended: input.suspended });
    if (!updated) throw accountNotFound(id);
    await this.announce({ v: 1, kind: 'account', accountId: id });
    return this.getAccount(id);
  }

  /** Creates a key; the key itself is returned only here and stored only as its hash. */
  async createKey(accountId: string, input: CreateKeyInput): Promise<{ data: ApiKeyView; key: string }> {
    await this.getAccount(accountId);
    const key = generateApiKey();
    const saved = await this.keys.create({
      accountId,
      name: input.name ?? null,
      scope: input.scope,
      prefix: displayPrefix(key),
      keyHash: hashApiKey(key),
    });
    return { data: apiKeyView(saved), key };
  }

  async listKeys(accountId: string): Promise<ApiKeyView[]> {
    await this.getAccount(accountId);
    return (await this.keys.listByAccount(accountId)).map(apiKeyView);
  }

  async revokeKey(accountId: string, keyId: string): Promise<ApiKeyView> {
    const revoked = await this.keys.revoke(accountId, keyId);
    if (!revoked) throw new ApiError('not_found', `Account ${accountId} has no key ${keyId}.`);
    await this.announce({ v: 1, kind: 'key', keyId });
    return apiKeyView(revoked);
  }

  private async planNamed(name: string, path: string): Promise<Plan> {
    const plan = await this.plans.findByName(name);
    if (!plan) {
      const problem = `no plan named "${name}"; create it first (POST /api/v1/admin/plans or \`npx jumbe plans create\`)`;
      throw new ApiError('validation_error', `Invalid request body: ${path}: ${problem}`, [
        { path, problem },
      ]);
    }
    return plan;
  }

  private async planNames(): Promise<Map<string, string>> {
    return new Map((await this.plans.list()).map((plan) => [plan.id, plan.name]));
  }

  private announce(message: AccessInvalidation): Promise<void> {
    return this.invalidations.publish(ACCESS_INVALIDATION_TOPIC, encodeAccessInvalidation(message));
  }
}

const accountNotFound = (id: string) => new ApiError('not_found', `No account with id ${id}.`);
