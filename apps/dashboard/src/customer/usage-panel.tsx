import { call, type Credential, type Usage } from '../api';
import { LoadError, Panel, useLoader, when } from '../ui';

/**
 * Usage this cycle against the plan: meters for the capped counters, totals for the rest. The
 * operator view shows an account's through `/admin/accounts/:id/usage` (the same shape).
 */
export function UsagePanel({
  credential,
  path = '/usage',
  title = 'Usage this cycle',
}: {
  credential: Credential;
  path?: string;
  title?: string;
}) {
  const usage = useLoader(
    async () => (await call<Usage>(credential, 'GET', path)).data,
    [credential, path],
    10_000,
  );
  const u = usage.value;
  return (
    <Panel title={title}>
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
          <HitsChart days={u.hitsPerDay} />
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

/** API hits per day of the cycle as plain SVG bars; the numbers are in each bar's title and the label. */
function HitsChart({ days }: { days: Array<{ date: string; apiHits: number }> }) {
  const first = days[0];
  const last = days[days.length - 1];
  if (first === undefined || last === undefined) return null;
  const width = 600;
  const height = 120;
  const max = Math.max(1, ...days.map((day) => day.apiHits));
  const slot = width / days.length;
  const total = days.reduce((sum, day) => sum + day.apiHits, 0);
  const peak = days.reduce((best, day) => (day.apiHits > best.apiHits ? day : best), first);
  return (
    <figure class="chart">
      <figcaption>API hits per day</figcaption>
      <svg
        viewBox={`0 0 ${width} ${height + 16}`}
        role="img"
        aria-label={`API hits per day: ${total} over ${days.length} days, most on ${peak.date} (${peak.apiHits})`}
        data-testid="hits-chart"
      >
        {days.map((day, index) => {
          const barHeight = Math.round((day.apiHits / max) * height);
          return (
            <rect
              key={day.date}
              x={index * slot + 1}
              y={height - barHeight}
              width={Math.max(1, slot - 2)}
              height={barHeight}
              data-date={day.date}
              data-hits={day.apiHits}
            >
              <title>{`${day.date}: ${day.apiHits}`}</title>
            </rect>
          );
        })}
        <line x1={0} y1={height} x2={width} y2={height} />
        <text x={0} y={height + 13}>
          {first.date.slice(5)}
        </text>
        <text x={width} y={height + 13} text-anchor="end">
          {last.date.slice(5)}
        </text>
      </svg>
    </figure>
  );
}
