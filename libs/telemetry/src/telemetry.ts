import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { EXPOSITION_MAX_AGE_MS, ExpositionCache } from './exposition-cache';

/** The shard owners whose leases are counted apart. */
export type ShardRole = 'session-worker' | 'webhook-dispatcher';

/** A dependency whose connectivity is reported as 1 (answers) or 0 (does not). */
export type DependencyProbe = () => Promise<boolean>;

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The process's Prometheus registry and every metric family Jumbe exposes. One per process (the
 * all-in-one hosts gateway, worker and dispatcher together and reports them all on one /metrics).
 * Labels never carry an account id, a phone number or a key: only bounded sets (route templates,
 * methods, statuses, outcomes, shard numbers, roles).
 */
export class Telemetry {
  readonly registry = new Registry();
  private readonly sessionSources = new Set<() => Map<string, number>>();
  private readonly pendingSources = new Set<() => Promise<Map<number, number>>>();
  private readonly dependencyProbes = new Map<string, DependencyProbe>();

  readonly httpRequests = new Counter({
    name: 'jumbe_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'jumbe_http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to finishing its response, by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly apiHits = new Counter({
    name: 'jumbe_api_hits_total',
    help: 'Customer API requests counted against a plan (authenticated, not suspended, within quota).',
    registers: [this.registry],
  });
  readonly apiRefusals = new Counter({
    name: 'jumbe_api_refusals_total',
    help: 'Customer API requests refused with 401 (bad key), 402 (monthly limit) or 403 (suspended or scope).',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly busCommands = new Counter({
    name: 'jumbe_bus_commands_total',
    help: 'Commands sent over the bus, by command and outcome (ok, an error code, no_owner = 503, timeout = 504, bus_unavailable).',
    labelNames: ['command', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly busDuration = new Histogram({
    name: 'jumbe_bus_command_duration_seconds',
    help: 'Time from sending a bus command to its reply (or failure), by command and outcome.',
    labelNames: ['command', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly messagesSent = new Counter({
    name: 'jumbe_messages_sent_total',
    help: 'Send requests, by message type (text, media, interactive) and outcome (sent or the error code).',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly sessions = new Gauge({
    name: 'jumbe_sessions',
    help: 'Sessions live on this worker, by state.',
    labelNames: ['state'] as const,
    registers: [this.registry],
    // Gauges like this one are read at scrape time from the parts that know them.
    collect: () => {
      this.sessions.reset();
      for (const source of this.sessionSources)
        for (const [state, count] of source()) this.sessions.inc({ state }, count);
    },
  });
  readonly shardsOwned = new Gauge({
    name: 'jumbe_shards_owned',
    help: 'Shards this process owns, by role (session-worker, webhook-dispatcher).',
    labelNames: ['role'] as const,
    registers: [this.registry],
  });
  readonly leaseAcquisitions = new Counter({
    name: 'jumbe_shard_lease_acquisitions_total',
    help: 'Shard leases acquired by this process, by role.',
    labelNames: ['role'] as const,
    registers: [this.registry],
  });
  readonly leaseLosses = new Counter({
    name: 'jumbe_shard_lease_losses_total',
    help: 'Shard leases this process found taken or expired on renewal (not given up on purpose), by role.',
    labelNames: ['role'] as const,
    registers: [this.registry],
  });
  readonly inboundUndecryptable = new Counter({
    name: 'jumbe_inbound_undecryptable_total',
    help: 'Received WhatsApp messages the linked device could not decrypt (Baileys asked the sender to retry); never delivered.',
    registers: [this.registry],
  });
  readonly inboundPublished = new Counter({
    name: 'jumbe_inbound_events_published_total',
    help: 'Inbound events stored on the durable event stream, by outcome (published, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'jumbe_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome (success, failed).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly webhookDuration = new Histogram({
    name: 'jumbe_webhook_delivery_duration_seconds',
    help: 'Time a webhook delivery attempt took, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly webhookRetriesScheduled = new Counter({
    name: 'jumbe_webhook_retries_scheduled_total',
    help: 'Failed webhook deliveries of accounts that opted into retries, to be tried again after a backoff.',
    registers: [this.registry],
  });
  readonly webhookEventsGivenUp = new Counter({
    name: 'jumbe_webhook_events_given_up_total',
    help: 'Events of accounts that opted into retries whose last attempt failed: never delivered.',
    registers: [this.registry],
  });
  readonly consumerPending = new Gauge({
    name: 'jumbe_event_consumer_pending',
    help: 'Events waiting on the event stream for the dispatcher consumer of a shard this process owns.',
    labelNames: ['shard'] as const,
    registers: [this.registry],
    collect: async () => {
      this.consumerPending.reset();
      for (const source of this.pendingSources) {
        const pending = await source().catch(() => new Map<number, number>());
        for (const [shard, count] of pending) this.consumerPending.set({ shard: String(shard) }, count);
      }
    },
  });
  readonly dependencyUp = new Gauge({
    name: 'jumbe_dependency_up',
    help: 'Whether a dependency answers (1) or not (0): database (PostgreSQL), bus (NATS), coordination (Redis).',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
    collect: async () => {
      await Promise.all(
        [...this.dependencyProbes].map(async ([dependency, probe]) =>
          this.dependencyUp.set({ dependency }, (await probe().catch(() => false)) ? 1 : 0),
        ),
      );
    },
  });

  private readonly exposed: ExpositionCache;

  /** `now` and `maxAgeMs` pace the rendering of /metrics (ExpositionCache); tests inject a clock. */
  constructor({ now, maxAgeMs = EXPOSITION_MAX_AGE_MS }: { now?: () => number; maxAgeMs?: number } = {}) {
    collectDefaultMetrics({ register: this.registry });
    this.exposed = new ExpositionCache(() => this.registry.metrics(), maxAgeMs, now);
  }

  /** Counts the sessions a worker holds, by state, at every scrape. Returns the way to stop. */
  watchSessions(source: () => Map<string, number>): () => void {
    this.sessionSources.add(source);
    return () => this.sessionSources.delete(source);
  }

  /** Reads the pending events of a dispatcher's consumers, per shard, at every scrape. */
  watchConsumerPending(source: () => Promise<Map<number, number>>): () => void {
    this.pendingSources.add(source);
    return () => this.pendingSources.delete(source);
  }

  /** Probes a dependency at every scrape (the health check's probe). */
  watchDependency(name: string, probe: DependencyProbe): void {
    this.dependencyProbes.set(name, probe);
  }

  /**
   * The exposition text and its content type, as /metrics serves it: rendered at most once per
   * second however many scrapes ask (ExpositionCache), so up to a second old.
   */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.exposed.current() };
  }
}

let processTelemetry: Telemetry | null = null;

/** The process's one Telemetry (created on first use). */
export function telemetry(): Telemetry {
  processTelemetry ??= new Telemetry();
  return processTelemetry;
}
