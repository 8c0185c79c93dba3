import { useState } from 'preact/hooks';
import { type Account, type ApiKey, call, type Credential, type Plan, type Session } from '../api';
import { CreateKey, KeyTable } from '../customer/keys-panel';
import { UsagePanel } from '../customer/usage-panel';
import { LoadError, Outcome, Panel, useAction, useLoader, when, Table } from '../ui';

/** The operator's view (admin token): plans, accounts, and any account's keys, usage and sessions. */
export function OperatorView({ credential }: { credential: Credential }) {
  const plans = useLoader(
    async () => (await call<Plan[]>(credential, 'GET', '/admin/plans')).data,
    [credential],
  );
  const accounts = useLoader(
    async () => (await call<Account[]>(credential, 'GET', '/admin/accounts')).data,
    [credential],
  );
  const [selected, setSelected] = useState<string | null>(null);
  return (
    <main>
      <PlansPanel credential={credential} plans={plans.value} error={plans.error} reload={plans.reload} />
      <Panel title="Accounts">
        <LoadError error={accounts.error} />
        <CreateAccount credential={credential} plans={plans.value ?? []} reload={accounts.reload} />
        {accounts.value && (
          <Table columns={['Name', 'Plan', 'Status', 'Created']} testId="accounts" actions>
            {accounts.value.map((account) => (
              <AccountRow
                key={account.id}
                credential={credential}
                account={account}
                plans={plans.value ?? []}
                reload={accounts.reload}
                onOpen={() => setSelected(account.id)}
              />
            ))}
          </Table>
        )}
      </Panel>
      {selected && (
        <>
          <AccountKeys key={`keys-${selected}`} credential={credential} accountId={selected} />
          <UsagePanel
            key={`usage-${selected}`}
            credential={credential}
            path={`/admin/accounts/${selected}/usage`}
            title="Usage of the account"
          />
          <AccountSessions key={`sessions-${selected}`} credential={credential} accountId={selected} />
        </>
      )}
    </main>
  );
}

function PlansPanel(props: {
  credential: Credential;
  plans: Plan[] | undefined;
  error: string | null;
  reload: () => Promise<void>;
}) {
  const [name, setName] = useState('');
  const [hits, setHits] = useState('10000');
  const [sessions, setSessions] = useState('2');
  const action = useAction();
  return (
    <Panel title="Plans">
      <LoadError error={props.error} />
      {props.plans && (
        <ul>
          {props.plans.map((plan) => (
            <PlanRow key={plan.id} credential={props.credential} plan={plan} reload={props.reload} />
          ))}
        </ul>
      )}
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            const result = await call(props.credential, 'POST', '/admin/plans', {
              name: name.trim(),
              monthlyApiHits: Number(hits),
              maxSessions: Number(sessions),
            });
            await props.reload();
            return result.message ?? 'Plan created.';
          });
        }}
      >
        <label for="plan-name">Plan name</label>
        <input id="plan-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="plan-hits">Monthly API hits</label>
        <input
          id="plan-hits"
          type="number"
          min="0"
          value={hits}
          onInput={(e) => setHits(e.currentTarget.value)}
        />
        <label for="plan-sessions">Max sessions</label>
        <input
          id="plan-sessions"
          type="number"
          min="0"
          value={sessions}
          onInput={(e) => setSessions(e.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy}>
          Create plan
        </button>
      </form>
      <Outcome outcome={action.outcome} />
    </Panel>
  );
}

/** A plan with its limits editable in place (the name is fixed: accounts refer to it). */
function PlanRow(props: { credential: Credential; plan: Plan; reload: () => Promise<void> }) {
  const { plan } = props;
  const [hits, setHits] = useState(String(plan.monthlyApiHits));
  const [sessions, setSessions] = useState(String(plan.maxSessions));
  const action = useAction();
  return (
    <li data-plan={plan.name}>
      <strong>{plan.name}</strong>: {plan.monthlyApiHits} API hits a month, {plan.maxSessions} sessions
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            const result = await call(props.credential, 'PATCH', `/admin/plans/${plan.id}`, {
              monthlyApiHits: Number(hits),
              maxSessions: Number(sessions),
            });
            await props.reload();
            return result.message ?? 'Plan updated.';
          });
        }}
      >
        <label for={`hits-${plan.id}`}>Monthly API hits of {plan.name}</label>
        <input
          id={`hits-${plan.id}`}
          type="number"
          min="0"
          value={hits}
          onInput={(e) => setHits(e.currentTarget.value)}
        />
        <label for={`sessions-${plan.id}`}>Max sessions of {plan.name}</label>
        <input
          id={`sessions-${plan.id}`}
          type="number"
          min="0"
          value={sessions}
          onInput={(e) => setSessions(e.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy}>
          Save {plan.name}
        </button>
      </form>
      <Outcome outcome={action.outcome} />
    </li>
  );
}

function CreateAccount(props: { credential: Credential; plans: Plan[]; reload: () => Promise<void> }) {
  const [name, setName] = useState('');
  const [plan, setPlan] = useState('');
  const action = useAction();
  return (
    <>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            const result = await call(props.credential, 'POST', '/admin/accounts', {
              name: name.trim(),
              plan: plan || props.plans[0]?.name,
            });
            await props.reload();
            return result.message ?? 'Account created.';
          });
        }}
      >
        <label for="account-name">Account name</label>
        <input id="account-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="account-plan">Plan</label>
        <select id="account-plan" value={plan} onChange={(e) => setPlan(e.currentTarget.value)}>
          {props.plans.map((p) => (
            <option key={p.id} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
        <button type="submit" disabled={action.busy}>
          Create account
        </button>
      </form>
      <Outcome outcome={action.outcome} />
    </>
  );
}

function AccountRow(props: {
  credential: Credential;
  account: Account;
  plans: Plan[];
  reload: () => Promise<void>;
  onOpen: () => void;
}) {
  const { account } = props;
  const action = useAction();
  const update = (body: { plan?: string; suspended?: boolean }) =>
    void action.run(async () => {
      const result = await call(props.credential, 'PATCH', `/admin/accounts/${account.id}`, body);
      await props.reload();
      return result.message ?? 'Account updated.';
    });
  return (
    <tr data-account={account.name}>
      <td>{account.name}</td>
      <td>
        <label class="sr-only" for={`plan-${account.id}`}>
          Plan of {account.name}
        </label>
        <select
          id={`plan-${account.id}`}
          value={account.plan}
          onChange={(e) => update({ plan: e.currentTarget.value })}
        >
          {props.plans.map((p) => (
            <option key={p.id} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </td>
      <td>{account.suspended ? 'suspended' : 'active'}</td>
      <td>{when(account.createdAt)}</td>
      <td>
        <button type="button" onClick={() => update({ suspended: !account.suspended })}>
          {account.suspended ? `Reinstate ${account.name}` : `Suspend ${account.name}`}
        </button>{' '}
        <button type="button" onClick={props.onOpen}>
          Keys of {account.name}
        </button>
        <Outcome outcome={action.outcome} />
      </td>
    </tr>
  );
}

function AccountKeys({ credential, accountId }: { credential: Credential; accountId: string }) {
  const keys = useLoader(
    async () => (await call<ApiKey[]>(credential, 'GET', `/admin/accounts/${accountId}/keys`)).data,
    [credential, accountId],
  );
  return (
    <Panel title="Keys of the account">
      <LoadError error={keys.error} />
      <KeyTable
        keys={keys.value}
        onRevoke={(id) => call(credential, 'DELETE', `/admin/accounts/${accountId}/keys/${id}`)}
        reload={keys.reload}
      />
      <CreateKey
        create={(body) => call<ApiKey>(credential, 'POST', `/admin/accounts/${accountId}/keys`, body)}
        reload={keys.reload}
      />
    </Panel>
  );
}

function AccountSessions({ credential, accountId }: { credential: Credential; accountId: string }) {
  const sessions = useLoader(
    async () => (await call<Session[]>(credential, 'GET', `/admin/accounts/${accountId}/sessions`)).data,
    [credential, accountId],
    5_000,
  );
  return (
    <Panel title="Sessions of the account">
      <LoadError error={sessions.error} />
      {sessions.value && sessions.value.length === 0 && <p>No sessions.</p>}
      {sessions.value && sessions.value.length > 0 && (
        <Table columns={['Session', 'State', 'Phone number', 'Updated']} testId="account-sessions">
          {sessions.value.map((session) => (
            <tr key={session.sessionId}>
              <td>{session.sessionId}</td>
              <td>
                {session.state}
                {session.reason ? ` (${session.reason})` : ''}
              </td>
              <td>{session.phoneNumber ?? '—'}</td>
              <td>{session.updatedAt ? when(session.updatedAt) : '—'}</td>
            </tr>
          ))}
        </Table>
      )}
    </Panel>
  );
}
