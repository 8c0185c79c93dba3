import {
  type AccessInvalidation,
  ACCESS_INVALIDATION_TOPIC,
  ApiError,
  type CreateAccountInput,
  type CreateKeyInput,
  type CreatePlanInput,
  encodeAccessInvalidation,
  type UpdateAccountInput,
} from '@jumbe/contracts';
import { billingCycleAt, displayPrefix, generateApiKey, hashApiKey, type Plan } from '@jumbe/domain';
import type { OperatorPorts } from './ports/operator-ports';
import { isDuplicatePlanName } from './ports/plan-store';
import { type AccountView, accountView, type ApiKeyView, apiKeyView, type PlanView, planView } from './views';

/**
 * The operator's operations on plans, accounts and keys (CONTRACT §8), shared by the admin API and
 * the CLI so both behave identically. Changes that affect access are announced on the
 * invalidation bus, so every gateway drops its cached copy at once.
 */
export class OperatorService {
  private readonly plans: OperatorPorts['plans'];
  private readonly accounts: OperatorPorts['accounts'];
  private readonly keys: OperatorPorts['keys'];
  private readonly usage: OperatorPorts['usage'];
  private readonly sessions: OperatorPorts['sessions'];
  private readonly failures: OperatorPorts['failures'];
  private readonly invalidations: OperatorPorts['invalidations'];

  /** Its stores come from a composition root, which shares them with the gateway's own ports. */
  constructor(ports: OperatorPorts) {
    this.plans = ports.plans;
    this.accounts = ports.accounts;
    this.keys = ports.keys;
    this.usage = ports.usage;
    this.sessions = ports.sessions;
    this.failures = ports.failures;
    this.invalidations = ports.invalidations;
  }

  async createPlan(input: CreatePlanInput): Promise<PlanView> {
    try {
      return planView(await this.plans.create(input));
    } catch (error) {
      if (isDuplicatePlanName(error)) {
        throw new ApiError('conflict', `A plan named "${input.name}" already exists.`);
      }
      throw error;
    }
  }

  async listPlans(): Promise<PlanView[]> {
    return (await this.plans.list()).map(planView);
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

  /**
   * The account an operator means by `ref`: its id, or its name when exactly one account has it
   * (names are not unique, so an ambiguous name is refused with the ids to choose from).
   */
  async findAccount(ref: string): Promise<AccountView> {
    const byId = await this.accounts.findWithPlan(ref);
    if (byId) return accountView(byId.account, byId.plan.name);
    const named = (await this.listAccounts()).filter((account) => account.name === ref);
    if (named.length === 1) return named[0];
    if (named.length > 1) {
      const ids = named.map((account) => account.id).join(', ');
      throw new ApiError('conflict', `${named.length} accounts are named "${ref}"; use an id: ${ids}.`);
    }
    throw new ApiError('not_found', `No account with id ${ref}, nor one named "${ref}".`);
  }

  /** The plan an operator means by `ref`: its name (unique) or its id. */
  async findPlan(ref: string): Promise<PlanView> {
    const plan = (await this.plans.findByName(ref)) ?? (await this.plans.findById(ref));
    if (!plan) throw new ApiError('not_found', `No plan with name or id ${ref}.`);
    return planView(plan);
  }

  /** Changes a plan's limits; every account on it sees the new limits at once. */
  async updatePlan(
    ref: string,
    changes: { monthlyApiHits?: number; maxSessions?: number },
  ): Promise<PlanView> {
    const plan = await this.findPlan(ref);
    const updated = await this.plans.update(plan.id, changes);
    if (!updated) throw new ApiError('not_found', `No plan with name or id ${ref}.`);
    await this.announce({ v: 1, kind: 'plan', planId: plan.id });
    return planView(updated);
  }

  /**
   * Rotation: a new key with the old one's name and scope, and the old key's revocation scheduled
   * `graceMs` from now (stored as its future `revokedAt`, so it holds across restarts), which
   * gives the customer time to deploy the new key.
   */
  async rotateKey(
    accountId: string,
    keyId: string,
    graceMs: number,
  ): Promise<{ data: ApiKeyView; key: string; previous: ApiKeyView }> {
    const old = (await this.keys.listByAccount(accountId)).find((key) => key.id === keyId);
    if (!old) throw new ApiError('not_found', `Account ${accountId} has no key ${keyId}.`);
    if (old.revokedAt !== null && old.revokedAt.getTime() <= Date.now()) {
      throw new ApiError('conflict', `Key ${keyId} is already revoked; create a new key instead.`);
    }
    const created = await this.createKey(accountId, { name: old.name ?? undefined, scope: old.scope });
    const previous =
      graceMs === 0
        ? await this.keys.revoke(accountId, keyId)
        : await this.keys.scheduleRevoke(accountId, keyId, new Date(Date.now() + graceMs));
    if (!previous) throw new ApiError('not_found', `Account ${accountId} has no key ${keyId}.`);
    // Gateways cache keys; the announcement makes them look again and learn the revocation time.
    await this.announce({ v: 1, kind: 'key', keyId });
    return { ...created, previous: apiKeyView(previous) };
  }

  /**
   * One account at a glance for an operator: this month's usage (as last saved to PostgreSQL;
   * gateways save the live Redis counters periodically), its sessions and its recent failed sends.
   */
  async accountReport(ref: string, failureLimit = 10) {
    const account = await this.findAccount(ref);
    const plan = await this.findPlan(account.plan);
    const cycle = billingCycleAt(new Date());
    const [usage, sessions, failures] = await Promise.all([
      this.usage.load(account.id, cycle.id),
      this.sessions.list(account.id),
      this.failures.list(account.id, { limit: failureLimit }),
    ]);
    return {
      account,
      usage: {
        periodStart: cycle.start.toISOString(),
        periodEnd: cycle.end.toISOString(),
        ...usage,
        apiHitLimit: plan.monthlyApiHits,
        sessionLimit: plan.maxSessions,
      },
      sessions: sessions.map((session) => ({
        id: session.sessionId,
        state: session.state,
        phoneNumber: session.phoneNumber,
        reason: session.reason,
        updatedAt: session.updatedAt.toISOString(),
      })),
      recentFailures: failures.map((failure) => ({
        at: failure.createdAt.toISOString(),
        sessionId: failure.sessionId,
        to: failure.to,
        type: failure.type,
        code: failure.code,
        message: failure.message,
      })),
    };
  }

  private async planNamed(name: string, path: string): Promise<Plan> {
    const plan = (await this.plans.findByName(name)) ?? (await this.plans.findById(name));
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
