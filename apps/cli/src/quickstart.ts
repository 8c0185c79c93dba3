import { type JumbeConfig, readListeningAddress } from '@jumbe/config';
import type { OperatorService } from '@jumbe/operator';

const TRIAL_PLAN = { name: 'trial', monthlyApiHits: 10_000, maxSessions: 3 };

/**
 * A newcomer's first account: the trial plan and the account are created once and reused when
 * quickstart runs again (only a new key is made, since a key is shown only when created).
 */
export async function runQuickstart(operator: OperatorService, accountName: string, config: JumbeConfig) {
  const plans = await operator.listPlans();
  const plan =
    plans.find((candidate) => candidate.name === TRIAL_PLAN.name) ?? (await operator.createPlan(TRIAL_PLAN));
  const existing = (await operator.listAccounts()).find((candidate) => candidate.name === accountName);
  const account = existing ?? (await operator.createAccount({ name: accountName, plan: plan.name }));
  const { data, key } = await operator.createKey(account.id, { name: 'quickstart', scope: 'full' });
  const baseUrl = await gatewayUrl(config);
  return {
    account,
    plan: existing ? await operator.findPlan(existing.plan) : plan,
    reused: existing !== undefined,
    apiKey: key,
    keyId: data.id,
    baseUrl,
    next: `curl -s ${baseUrl}/api/v1/usage -H "x-api-key: ${key}"`,
  };
}

/** Where the running all-in-one listens (it records that in the data dir), else the configured port. */
async function gatewayUrl(config: JumbeConfig): Promise<string> {
  const running = await readListeningAddress(config.dataDir);
  if (running) return running.url.replace(/\/$/, '');
  return `http://localhost:${config.port}`;
}
