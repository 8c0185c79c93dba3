import type { OperatorService } from '@jumbe/operator';

const TRIAL_PLAN = { name: 'trial', monthlyApiHits: 10_000, maxSessions: 3 };

/** A newcomer's first account: the trial plan (created once), an account and a full key. */
export async function runQuickstart(operator: OperatorService, accountName: string) {
  const plans = await operator.listPlans();
  const plan =
    plans.find((candidate) => candidate.name === TRIAL_PLAN.name) ?? (await operator.createPlan(TRIAL_PLAN));
  const account = await operator.createAccount({ name: accountName, plan: plan.name });
  const { data, key } = await operator.createKey(account.id, { name: 'quickstart', scope: 'full' });
  return {
    account,
    plan,
    apiKey: key,
    keyId: data.id,
    next: `curl -s http://localhost:8080/api/v1/usage -H "x-api-key: ${key}"`,
  };
}
