// Preloaded into a service by the capacity bench (`node --require …`): counts every PostgreSQL
// round trip the process makes through `pg` (each `Client#query`, whoever calls it: TypeORM, the
// lease keeper, the outbox) by statement, with the time from the call to its answer, and the
// waits for a pooled connection (`Pool#connect`). On SIGUSR2 it writes one line
// `{"pgRoundTrips":{queries,queryMs,poolWaits,poolWaitMs,byStatement:{text:[count,ms]}}}` to
// stderr, cumulative since start: the bench takes the difference over a phase. Nothing of it is in
// the product: it stands where an operator's pg_stat_statements would (not loaded on this server).
'use strict';

const pg = require('pg');

const totals = { queries: 0, queryMs: 0, poolWaits: 0, poolWaitMs: 0 };
/** Statement text (whitespace folded, cut at 90 characters) → [count, ms]. */
const byStatement = new Map();

function statementOf(config) {
  const text = typeof config === 'string' ? config : (config?.text ?? config?.name ?? '(submittable)');
  return String(text).replace(/\s+/g, ' ').trim().slice(0, 90);
}

function record(statement, startedAt) {
  const ms = performance.now() - startedAt;
  totals.queryMs += ms;
  const entry = byStatement.get(statement);
  if (entry) {
    entry[0] += 1;
    entry[1] += ms;
  } else byStatement.set(statement, [1, ms]);
}

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(config, values, callback) {
  totals.queries += 1;
  const statement = statementOf(config);
  const startedAt = performance.now();
  const callbackAt = typeof callback === 'function' ? 2 : typeof values === 'function' ? 1 : -1;
  if (callbackAt === 2)
    return query.call(this, config, values, (...args) => {
      record(statement, startedAt);
      return callback(...args);
    });
  if (callbackAt === 1)
    return query.call(this, config, (...args) => {
      record(statement, startedAt);
      return values(...args);
    });
  const result = query.call(this, config, values);
  if (result && typeof result.then === 'function')
    result.then(
      () => record(statement, startedAt),
      () => record(statement, startedAt),
    );
  else record(statement, startedAt);
  return result;
};

const connect = pg.Pool.prototype.connect;
pg.Pool.prototype.connect = function countedConnect(callback) {
  totals.poolWaits += 1;
  const startedAt = performance.now();
  const done = () => (totals.poolWaitMs += performance.now() - startedAt);
  if (typeof callback === 'function')
    return connect.call(this, (...args) => {
      done();
      return callback(...args);
    });
  const result = connect.call(this);
  result.then(done, done);
  return result;
};

process.on('SIGUSR2', () => {
  const statements = Object.fromEntries(
    [...byStatement].map(([text, [count, ms]]) => [text, [count, Math.round(ms)]]),
  );
  process.stderr.write(
    `${JSON.stringify({
      pgRoundTrips: {
        ...totals,
        queryMs: Math.round(totals.queryMs),
        poolWaitMs: Math.round(totals.poolWaitMs),
        byStatement: statements,
      },
    })}\n`,
  );
});
