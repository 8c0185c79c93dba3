import { DEFAULT_SHARD_COUNT, shardOf } from '@jumbe/domain';
import { type ServiceProcess, TcpProxy } from '@jumbe/testing';
import { createAccount, type TestAccount } from './support/operator';
import { linkSession } from './support/sandbox-helpers';
import { type DistributedTopology, startDistributed } from './support/topology';

/**
 * Issue requirement: "NATS, Redis or PostgreSQL restarted under load: requests fail with 503 while
 * it is gone, the services reconnect by themselves, no session ends up owned twice."
 *
 * The real servers are shared with other suites, so they are never stopped: each Jumbe process
 * reaches them through a TcpProxy, and cutting a proxy is what a restart looks like from the
 * processes' side (connections reset, then refused, then accepted again on the same address).
 */
describe('distributed: PostgreSQL, Redis and NATS restarted under load', () => {
  /** How long each dependency stays away. */
  const OUTAGE_MS = 4_000;
  /** After the dependency is back, everything must work again within this... */
  const RECOVERY_TIMEOUT_MS = 20_000;
  /** ...and keep working for this long (two shard-keeper ticks and then some). */
  const RECOVERY_STABLE_MS = 2_500;
  /** A request sent this soon after a cut may already be on the wire before the client notices. */
  const IN_FLIGHT_GRACE_MS = 50;
  /** JUMBE_COMMAND_TIMEOUT_MS defaults to 15 s: anything slower than that plus a margin is a hang. */
  const HANG_LIMIT_MS = 16_000;
  /** Bounds on the background load, whatever happens: ~40 s of ticks, 40 requests in flight at most. */
  const LOAD_BOUNDS = { tickMs: 50, maxTicks: 800, maxInFlight: 40 };
  const SESSION_IDS = ['shop0', 'shop1', 'shop2', 'shop3'];
  const RECIPIENT = '254711111111';

  const proxies: Partial<Record<Dependency, TcpProxy>> = {};
  const stoppedWorkers = new Set<ServiceProcess>();
  const running = new Set<Load>();
  let topology: DistributedTopology | undefined;
  let account: TestAccount;
  let shards: ShardWatch;
  /** For each shard, a session id of the account that falls in it: probing them all finds a shard nobody serves. */
  let probeIds: string[];

  beforeAll(async () => {
    topology = await startDistributed(2, {}, 2, {
      urls: async (real) => {
        proxies.database = await TcpProxy.inFrontOf(real.database);
        proxies.redis = await TcpProxy.inFrontOf(real.redis);
        proxies.nats = await TcpProxy.inFrontOf(real.nats);
        return {
          database: proxies.database.rewrite(real.database),
          redis: proxies.redis.rewrite(real.redis),
          nats: proxies.nats.rewrite(real.nats),
        };
      },
    });
    shards = new ShardWatch();
    account = await createAccount(topology.gateways[0]!, topology.adminToken, { maxSessions: 10 });
    for (const sessionId of SESSION_IDS) await linkSession(topology.gateways[0]!, account.key, sessionId);
    probeIds = sessionIdPerShard(account.accountId);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([...running].map((load) => load.stop()));
    // Dependencies back first, so the processes can shut down cleanly instead of timing out.
    await Promise.all(Object.values(proxies).map((proxy) => proxy.restore().catch(() => undefined)));
    await topology?.stop();
    await Promise.all(Object.values(proxies).map((proxy) => proxy.close()));
  }, 60_000);

  it('runs every process through the proxies (else cutting them would prove nothing)', () => {
    for (const [name, proxy] of Object.entries(proxies)) {
      // 2 gateways and 2 workers each opened at least one connection to every dependency.
      expect({ name, accepted: proxy.connectionsAccepted >= 4 }).toEqual({ name, accepted: true });
    }
  });

  it('Redis restarted: 503 with Retry-After while it is gone, then everything recovers', async () => {
    const result = await outage('redis', 'coordination');
    expect(result.loadStatuses.get(503) ?? 0).toBeGreaterThan(0);
  });

  it('NATS restarted: 503 with Retry-After while it is gone, then everything recovers', async () => {
    const result = await outage('nats', 'bus');
    expect(result.loadStatuses.get(503) ?? 0).toBeGreaterThan(0);
  });

  it('PostgreSQL restarted: no 500 while it is gone (GET /sessions 503), then everything recovers', async () => {
    // Sends may keep working from the caches (keys, accounts) and Redis; listing sessions reads
    // PostgreSQL on every call, so it must answer 503.
    const result = await outage('database', 'database');
    expect(result.sessionListStatuses.get(503) ?? 0).toBeGreaterThan(0);
  });

  // Last: it leaves one worker. Shards move while PostgreSQL is away, so the surviving worker
  // acquires leases it cannot adopt yet (adopting reads the shard's sessions from PostgreSQL).
  //
  // Regression: a shard whose adoption fails (PostgreSQL away) is released, not kept half-taken,
  // so the next tick adopts it again once PostgreSQL is back.
  it('PostgreSQL restarted while a worker hands its shards over: every shard is served again', async () => {
    await outage('database', 'database', async () => {
      const leaving = topology!.workers[0]!;
      stoppedWorkers.add(leaving);
      expect(await leaving.stop('SIGTERM')).toBe(0);
    });
  });

  interface OutageResult {
    loadStatuses: Map<number, number>;
    sessionListStatuses: Map<number, number>;
  }

  /**
   * Cuts one dependency for OUTAGE_MS under a background load (running `whileAway` right after the
   * cut), restores it, waits for full recovery, and asserts what must hold whatever the
   * dependency: only 200 or 503, no hang, Retry-After on every 503, health naming the missing
   * dependency, every shard served by exactly one worker, and no message sent twice or
   * acknowledged without being sent.
   */
  async function outage(
    dependency: Dependency,
    check: HealthCheck,
    whileAway: () => Promise<void> = async () => undefined,
  ): Promise<OutageResult> {
    const proxy = proxies[dependency]!;
    const gateways = topology!.gateways;
    const load = new Load(
      gateways.map((gateway) => gateway.baseUrl),
      account.key,
      SESSION_IDS,
      `${dependency}-${Date.now()}`,
      LOAD_BOUNDS,
    );
    running.add(load);
    try {
      await sleep(500); // some traffic before the cut, so the outage hits a warm system
      const cutAt = Date.now();
      await proxy.cut();
      await whileAway();
      // Probes the load does not cover: health (no key) and the PostgreSQL-backed session list.
      const probes: Sample[] = [];
      while (Date.now() - cutAt < OUTAGE_MS) {
        const round = await Promise.all([
          ...gateways.map((gateway, i) =>
            timed(gateway.baseUrl, `gateway-${i + 1}`, 'GET', '/api/v1/health'),
          ),
          timed(gateways[1]!.baseUrl, 'gateway-2', 'GET', '/api/v1/sessions', account.key),
        ]);
        probes.push(...round);
        await sleep(250);
      }
      const restoredAt = Date.now();
      await proxy.restore();
      const recovery = await waitForRecovery(restoredAt, load.label);
      const samples = await load.stop();

      const during = samples.filter((s) => s.startedAt >= cutAt && s.startedAt < restoredAt);
      const all = [...samples, ...probes, ...recovery.samples];
      const loadStatuses = countBy(during.map((s) => s.status));
      const sessionList = probes.filter((s) => s.label === 'GET /api/v1/sessions');
      const sessionListStatuses = countBy(sessionList.map((s) => s.status));
      const load503 = samples.filter((s) => s.status === 503);
      report(dependency, {
        requests: samples.length,
        duringOutage: Object.fromEntries(loadStatuses),
        sessionListDuringOutage: Object.fromEntries(sessionListStatuses),
        first503AfterCutMs: load503.length > 0 ? load503[0]!.startedAt - cutAt : null,
        last503AfterRestoreMs:
          load503.length > 0 ? Math.max(...load503.map((s) => s.startedAt + s.ms)) - restoredAt : null,
        slowestMs: Math.max(...all.map((s) => s.ms)),
        recoveredAfterRestoreMs: recovery.ok ? recovery.ms : null,
        recoverySteps: recovery.trail,
        shardsHeld: recovery.shardCounts,
      });

      // Never a 500 (or any other status), never a hang or a dropped connection, from the cut
      // until recovery.
      // One exception: a command already on its way to the worker when the bus is cut can only be
      // answered 504 `timeout` ("outcome unknown; check before retrying"): it may have been carried
      // out, so a 503 ("not done, retry") would invite a duplicate send.
      const inFlightAtCut = (s: Sample) =>
        dependency === 'nats' && s.status === 504 && s.startedAt <= cutAt + IN_FLIGHT_GRACE_MS;
      // And the simulated network keeps its phones in Redis: with Redis gone, a send that already
      // passed the gateway reaches a network that is down too, and is refused as it would be by
      // WhatsApp (502 `network_error`, recorded as a failed send), not left hanging.
      const sandboxNetworkDown = (s: Sample) =>
        dependency === 'redis' &&
        s.status === 502 &&
        s.body.includes('"network_error"') &&
        s.body.includes('the sandbox network did not take the message');
      const unexpected = all.filter(
        (s) => s.status !== 200 && s.status !== 503 && !inFlightAtCut(s) && !sandboxNetworkDown(s),
      );
      expect(
        unexpected.map((s) => `${describeSample(s)} (started ${s.startedAt - cutAt} ms after the cut)`),
      ).toEqual([]);
      expect(all.filter((s) => s.ms > HANG_LIMIT_MS).map(describeSample)).toEqual([]);
      // A 503 `unavailable` means "retry shortly": every one says when (CONTRACT §2). Health's 503
      // is a status report, not an error envelope, and carries none.
      const apiErrors = all.filter((s) => s.status === 503 && s.label !== 'GET /api/v1/health');
      expect(apiErrors.filter((s) => s.retryAfter === null).map(describeSample)).toEqual([]);
      // Health names the missing dependency while it is gone.
      const health = probes.filter((s) => s.label === 'GET /api/v1/health');
      for (const gateway of ['gateway-1', 'gateway-2']) {
        const named = health.filter((s) => s.target === gateway && s.status === 503);
        expect(named.some((s) => s.body.includes(`"${check}":"unavailable"`))).toBe(true);
      }
      expect(recovery.ok ? 'recovered' : recovery.pending).toBe('recovered');
      // A session served by two workers at once answers one request twice: both send, and the
      // message reaches the network twice (two outbox entries, two ids). And a 200 means the
      // network has the message.
      const outbox = await sentTexts(load.label);
      const acknowledged = all.filter((s) => s.status === 200 && s.text !== undefined).map((s) => s.text!);
      // Regression: a worker stops serving a shard before its unrenewed lease can expire in Redis,
      // so no command ever runs on two workers (each message reaches the network once).
      expect(duplicates(outbox)).toEqual([]);
      expect(acknowledged.filter((text) => !outbox.includes(text))).toEqual([]);
      return { loadStatuses, sessionListStatuses };
    } finally {
      await load.stop();
      running.delete(load);
      // A failed assertion must not leave the dependency away for the next test.
      await proxy.restore();
    }
  }

  interface Recovery {
    ok: boolean;
    /** From the restore until the checks started passing for good. */
    ms: number;
    pending: string;
    shardCounts: number[];
    trail: string[];
    samples: Sample[];
  }

  /**
   * Polls until everything works again, and keeps working for RECOVERY_STABLE_MS: health ok on
   * every gateway and worker, a send through every session via every gateway answers 200, every
   * session reads `connected`, every shard answers a command, and the workers' last reported shard
   * counts add up to exactly 64 with each worker serving some (no shard owned twice). The stable
   * window matters: right after a restore, workers may still be re-taking leases that lapsed while
   * the dependency was away, and the next test must not start in the middle of that.
   */
  async function waitForRecovery(restoredAt: number, label: string): Promise<Recovery> {
    const gateways = topology!.gateways;
    const workers = topology!.workers.filter((worker) => !stoppedWorkers.has(worker));
    const samples: Sample[] = [];
    let pending = 'nothing checked yet';
    let shardCounts: number[] = [];
    let passingSince: number | null = null;
    // What was still missing, and from when: the report shows which part of recovery took time.
    const trail: string[] = [];
    const note = (what: string) => {
      if (trail[trail.length - 1]?.split(' ms: ')[1] !== what)
        trail.push(`${Date.now() - restoredAt} ms: ${what}`);
    };
    for (let poll = 0; ; poll += 1) {
      shardCounts = shards.counts(workers);
      const health = await Promise.all([
        ...gateways.map((gateway, i) => timed(gateway.baseUrl, `gateway-${i + 1}`, 'GET', '/api/v1/health')),
        ...workers.map((worker) => timed(worker.url, worker.name, 'GET', '/api/v1/health')),
      ]);
      const sends = await Promise.all(
        gateways.flatMap((gateway, i) =>
          SESSION_IDS.map((sessionId) =>
            timed(gateway.baseUrl, `gateway-${i + 1}`, 'POST', '/api/v1/messages/text', account.key, {
              sessionId,
              to: RECIPIENT,
              text: `${label} check ${poll} via ${i + 1} to ${sessionId}`,
            }),
          ),
        ),
      );
      const list = await timed(gateways[0]!.baseUrl, 'gateway-1', 'GET', '/api/v1/sessions', account.key);
      samples.push(...health, ...sends, list);
      const states = list.status === 200 ? sessionStates(list.body) : {};
      const sum = shardCounts.reduce((a, b) => a + b, 0);
      let unserved: number[] = [];
      if (health.some((s) => s.status !== 200)) {
        note('health not ok');
        pending = `health: ${health
          .filter((s) => s.status !== 200)
          .map(describeSample)
          .join('; ')}`;
      } else if (sends.some((s) => s.status !== 200)) {
        const failed = sends.filter((s) => s.status !== 200);
        note(`sends ${sends.map((s) => s.status).join(',')} ${failed[0]!.body.slice(0, 100)}`);
        pending = `sends: ${failed.map(describeSample).join('; ')}`;
      } else if (list.status !== 200 || SESSION_IDS.some((id) => states[id] !== 'connected')) {
        note(`sessions ${list.status} ${JSON.stringify(states)}`);
        pending = `sessions: ${describeSample(list)}`;
      } else if ((unserved = await unservedShards()).length > 0) {
        note(`shards nobody serves: ${unserved.join(',')}`);
        pending = `shards nobody serves: ${unserved.join(', ')}`;
      } else if (sum !== DEFAULT_SHARD_COUNT || shardCounts.some((count) => count === 0)) {
        note(`shards held ${shardCounts.join('+')}`);
        pending = `shards held per worker: ${shardCounts.join(' + ')} (want ${DEFAULT_SHARD_COUNT}, each > 0)`;
      } else {
        note('all checks pass');
        passingSince ??= Date.now();
        if (Date.now() - passingSince >= RECOVERY_STABLE_MS) {
          return { ok: true, ms: passingSince - restoredAt, pending: '', shardCounts, trail, samples };
        }
        await sleep(200);
        continue;
      }
      passingSince = null;
      if (Date.now() - restoredAt > RECOVERY_TIMEOUT_MS) break;
      await sleep(200);
    }
    return { ok: false, ms: Date.now() - restoredAt, pending, shardCounts, trail, samples };
  }

  /**
   * Shards whose commands find no worker: a session status request for a session id in each
   * shard (never started: the owner answers "disconnected"), through both gateways in turn.
   */
  async function unservedShards(): Promise<number[]> {
    const gateways = topology!.gateways;
    const answers = await Promise.all(
      probeIds.map((sessionId, shard) => {
        const i = shard % gateways.length;
        const path = `/api/v1/session/status?sessionId=${sessionId}`;
        return timed(gateways[i]!.baseUrl, `gateway-${i + 1}`, 'GET', path, account.key);
      }),
    );
    return answers.flatMap((answer, shard) => (answer.status === 200 ? [] : [shard]));
  }

  /** The texts of this outage's messages the sandbox network received, over every session. */
  async function sentTexts(label: string): Promise<string[]> {
    const texts: string[] = [];
    for (const sessionId of SESSION_IDS) {
      const path = `/api/v1/sandbox/outbox?sessionId=${sessionId}&limit=500`;
      const outbox = await timed(topology!.gateways[0]!.baseUrl, 'gateway-1', 'GET', path, account.key);
      expect(outbox.status).toBe(200);
      const entries = (JSON.parse(outbox.body) as { data: { content: { text?: string } }[] }).data;
      texts.push(
        ...entries.map((entry) => entry.content.text ?? '').filter((text) => text.startsWith(label)),
      );
    }
    return texts;
  }

  function report(dependency: Dependency, numbers: Record<string, unknown>): void {
    process.stdout.write(`outage ${dependency}: ${JSON.stringify(numbers)}\n`);
  }
});

type Dependency = 'database' | 'redis' | 'nats';
type HealthCheck = 'database' | 'bus' | 'coordination';

/** One HTTP exchange as the tests judge it; status 0 means no answer (refused, reset or timed out). */
interface Sample {
  label: string;
  /** Which process answered: gateway-1, worker-2, ... */
  target: string;
  startedAt: number;
  ms: number;
  status: number;
  retryAfter: string | null;
  body: string;
  /** The text of a message send, to find it in the sandbox's outbox. */
  text?: string;
}

/** The http() helper has no deadline; under an outage a hang is exactly what must be caught. */
const REQUEST_DEADLINE_MS = 20_000;

async function timed(
  baseUrl: string,
  target: string,
  method: 'GET' | 'POST',
  path: string,
  key?: string,
  body?: Record<string, string>,
): Promise<Sample> {
  const startedAt = Date.now();
  const label = `${method} ${path.split('?')[0]}`;
  const text = body?.['text'];
  const headers: Record<string, string> = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
    });
    return {
      label,
      target,
      startedAt,
      ms: Date.now() - startedAt,
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: await response.text(),
      text,
    };
  } catch (error) {
    return {
      label,
      target,
      startedAt,
      ms: Date.now() - startedAt,
      status: 0,
      retryAfter: null,
      body: (error as Error).message,
      text,
    };
  }
}

/**
 * Background traffic: every tick, a text message through one gateway (sessions in turn) and
 * GET /usage through the other. Requests do not wait for each other, so one slow answer does
 * not slow the load down; ticks and requests in flight are bounded so the loop always ends.
 */
class Load {
  private readonly samples: Sample[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(
    private readonly baseUrls: string[],
    private readonly key: string,
    private readonly sessionIds: string[],
    /** Starts every message text, so this load's messages can be told apart in the outbox. */
    readonly label: string,
    private readonly bounds: { tickMs: number; maxTicks: number; maxInFlight: number },
  ) {
    this.loop = this.run();
  }

  /** Stops issuing requests, waits for those in flight, and returns every exchange in start order. */
  async stop(): Promise<Sample[]> {
    this.stopped = true;
    await this.loop;
    await Promise.all([...this.inFlight]);
    return [...this.samples].sort((a, b) => a.startedAt - b.startedAt);
  }

  private async run(): Promise<void> {
    for (let tick = 0; tick < this.bounds.maxTicks && !this.stopped; tick += 1) {
      if (this.inFlight.size < this.bounds.maxInFlight) {
        const sender = tick % this.baseUrls.length;
        const reader = (tick + 1) % this.baseUrls.length;
        this.track(
          timed(this.baseUrls[sender]!, `gateway-${sender + 1}`, 'POST', '/api/v1/messages/text', this.key, {
            sessionId: this.sessionIds[tick % this.sessionIds.length]!,
            to: '254711111111',
            text: `${this.label} load ${tick}`,
          }),
        );
        this.track(timed(this.baseUrls[reader]!, `gateway-${reader + 1}`, 'GET', '/api/v1/usage', this.key));
      }
      await sleep(this.bounds.tickMs);
    }
  }

  private track(request: Promise<Sample>): void {
    const done: Promise<void> = request.then((sample) => {
      this.samples.push(sample);
      this.inFlight.delete(done);
    });
    this.inFlight.add(done);
  }
}

/**
 * The workers log `"shardsHeld":N` whenever their count changes (ShardKeeper.reportChange). The
 * last count of each, read from its logs, is how many shards it believes it holds; kept here
 * too, because a chatty outage could push the line out of the 2,000 lines a ServiceProcess keeps.
 */
class ShardWatch {
  private readonly lastKnown = new Map<string, number>();

  counts(workers: ServiceProcess[]): number[] {
    return workers.map((worker) => {
      const matches = [...worker.logs().matchAll(/"shardsHeld":(\d+)/g)];
      if (matches.length > 0) this.lastKnown.set(worker.name, Number(matches[matches.length - 1]![1]));
      return this.lastKnown.get(worker.name) ?? 0;
    });
  }
}

/** One session id per shard for this account (the shard is a hash of account and session id). */
function sessionIdPerShard(accountId: string): string[] {
  const ids: string[] = [];
  let found = 0;
  for (let n = 0; found < DEFAULT_SHARD_COUNT; n += 1) {
    const shard = shardOf(accountId, `probe-${n}`);
    if (ids[shard] === undefined) {
      ids[shard] = `probe-${n}`;
      found += 1;
    }
  }
  return ids;
}

/** Each session's state, with its reason when it has one (`disconnected/connection_replaced`). */
function sessionStates(body: string): Record<string, string> {
  try {
    const parsed = JSON.parse(body) as {
      data: { sessionId: string; state: string; reason: string | null }[];
    };
    return Object.fromEntries(
      parsed.data.map((s) => [s.sessionId, s.reason === null ? s.state : `${s.state}/${s.reason}`]),
    );
  } catch {
    return {};
  }
}

function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((value) => seen.has(value) || !seen.add(value));
}

function countBy(values: number[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

function describeSample(sample: Sample): string {
  return `${sample.target} ${sample.label} → ${sample.status} in ${sample.ms} ms: ${sample.body.slice(0, 200)}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
