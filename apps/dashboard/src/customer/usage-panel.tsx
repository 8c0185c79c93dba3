import { call, type Credential, type Usage } from '../api';
import { LoadError, Panel, useLoader, when } from '../ui';

/** Usage this cycle against the plan: meters for the capped counters, totals for the rest. */
export function UsagePanel({ credential }: { credential: Credential }) {
  const usage = useLoader(
    async () => (await call<Usage>(credential, 'GET', '/usage')).data,
    [credential],
    10_000,
  );
  const u = usage.value;
  return (
    <Panel title="Usage this cycle">
      <LoadError error={usage.error} />
      {u && (
        <>
          <p>
            Plan <strong>{u.plan}</strong>, cycle {when(u.periodStart)} – {when(u.periodEnd)}
          </p>
          <dl class="meters">
            <Meter label="API hits" value={u.apiHits} limit={u.apiHitLimit} />
            <Meter label="Sessions" value={u.sessions} limit={u.sessionLimit} />
            <div>
              <dt>Messages sent</dt>
              <dd>{u.messagesSent}</dd>
            </div>
            <div>
              <dt>Failed sends</dt>
              <dd>{u.sendFailures}</dd>
            </div>
          </dl>
        </>
      )}
    </Panel>
  );
}

function Meter({ label, value, limit }: { label: string; value: number; limit: number }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        {value} / {limit}
        <progress max={limit} value={Math.min(value, limit)} aria-label={`${label}: ${value} of ${limit}`} />
      </dd>
    </div>
  );
}
