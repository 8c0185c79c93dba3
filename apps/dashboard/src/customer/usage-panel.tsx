import { call, type Credential, type Usage } from '../api';
import { LoadError, Panel, useLoader, when } from '../ui';

/** Usage this cycle against the plan, with a bar chart of API hits per day when the API gives it. */
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
          {u.dailyHits && u.dailyHits.length > 0 && <DailyChart days={u.dailyHits} />}
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

function DailyChart({ days }: { days: Array<{ day: string; hits: number }> }) {
  const max = Math.max(1, ...days.map((d) => d.hits));
  const width = 24;
  return (
    <figure>
      <svg
        class="chart"
        viewBox={`0 0 ${days.length * width} 100`}
        role="img"
        aria-label={`API hits per day: ${days.map((d) => `${d.day} ${d.hits}`).join(', ')}`}
      >
        {days.map((d, i) => {
          const h = Math.round((d.hits / max) * 90);
          return <rect key={d.day} x={i * width + 2} y={100 - h} width={width - 4} height={h} />;
        })}
      </svg>
      <figcaption>API hits per day this cycle (highest: {max})</figcaption>
    </figure>
  );
}
