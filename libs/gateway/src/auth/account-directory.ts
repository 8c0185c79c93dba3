import { ACCESS_INVALIDATION_TOPIC, ApiError, decodeAccessInvalidation } from '@jumbe/contracts';
import type { InvalidationBus } from '../ports/invalidation-bus';
import { LRUCache } from 'lru-cache';
import type { AccountLookup } from '../ports/account-lookup';
import { orUnavailable } from '../http/dependency-failure';
import type { AccountAccess } from './principal';

/**
 * Account facts the request path needs on every call (suspended? which plan, which limits?),
 * cached like keys and evicted by the same invalidation bus.
 */
export class AccountDirectory {
  private readonly cache = new LRUCache<string, AccountAccess>({ max: 10_000, ttl: 30_000 });

  constructor(
    private readonly accounts: AccountLookup,
    private readonly invalidations: InvalidationBus,
  ) {}

  async start(): Promise<void> {
    this.invalidations.onPossibleLoss(() => this.cache.clear());
    await this.invalidations.subscribe(ACCESS_INVALIDATION_TOPIC, (text) => {
      const message = decodeAccessInvalidation(text);
      if (message?.kind === 'account') this.cache.delete(message.accountId);
      // A plan edit touches every account on it; plans change rarely, so drop everything.
      if (message === null || message.kind === 'plan') this.cache.clear();
    });
  }

  /** The account as cached (invalidations evict it), without a promise; undefined on a miss. */
  cached(accountId: string): AccountAccess | undefined {
    return this.cache.get(accountId);
  }

  async get(accountId: string): Promise<AccountAccess> {
    const cached = this.cache.get(accountId);
    if (cached) return cached;
    const found = await orUnavailable('database', () => this.accounts.findWithPlan(accountId));
    // A key whose account is gone authenticates nothing.
    if (!found) throw new ApiError('unauthorized');
    const access: AccountAccess = {
      accountId: found.account.id,
      suspended: found.account.suspended,
      plan: {
        id: found.plan.id,
        name: found.plan.name,
        monthlyApiHits: found.plan.monthlyApiHits,
        maxSessions: found.plan.maxSessions,
      },
    };
    this.cache.set(accountId, access);
    return access;
  }
}
