import type { AccountActivity } from './account-activity';
import type { AccountStore } from './account-store';
import type { ApiKeyStore } from './api-key-store';
import type { PlanStore } from './plan-store';

/**
 * Everything the operator's service runs on, bound by a composition root (the gateway's bindings,
 * the CLI): the stores of plans, accounts and keys, what a report reads, and where changes that
 * affect access are announced.
 */
export interface OperatorPorts extends AccountActivity {
  plans: PlanStore;
  accounts: AccountStore;
  keys: ApiKeyStore;
  /** The invalidation bus: every gateway drops its cached copy of what a message names. */
  invalidations: { publish(topic: string, message: string): Promise<void> };
}
