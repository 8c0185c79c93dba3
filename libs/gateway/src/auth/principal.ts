import type { BillingCycle, KeyScope, UsageCounters } from '@jumbe/domain';

/** Who is calling: the key that authenticated the request and its account. */
export interface Principal {
  keyId: string;
  accountId: string;
  scope: KeyScope;
}

export interface AccountAccess {
  accountId: string;
  suspended: boolean;
  plan: { id: string; name: string; monthlyApiHits: number; maxSessions: number };
}

/** What a customer route knows about its caller after the guard let it through. */
export interface CustomerContext {
  principal: Principal;
  access: AccountAccess;
  cycle: BillingCycle;
  usage: UsageCounters;
  /** The request's X-Request-Id: the bus commands it sends carry it (`Jumbe-Request-Id`). */
  requestId?: string;
  /** Set when the caller is a dashboard session (CONTRACT §11): its requests are not API hits. */
  dashboardSessionId?: string;
}
