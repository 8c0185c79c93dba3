import { context, propagation, SpanKind } from '@opentelemetry/api';
import { delegateTo } from './delegate';
import { inSpan } from './spans';
import { type ShardRole, telemetry } from './telemetry';

/**
 * Small wrappers that observe the parts of a service without changing them: each returns an
 * object that behaves as the one given and counts what passes through it.
 */

interface ShardOwnerLike {
  adopt(shard: number, token: number, lease?: { valid(): boolean }): Promise<void>;
  drop(shard: number): Promise<void>;
  lost?(shard: number): void;
}

/** Shards owned, lease acquisitions (a shard adopted) and lease losses of one role. */
export function observeShardOwner<T extends ShardOwnerLike>(role: ShardRole, owner: T): T {
  const metrics = telemetry();
  const owned = new Set<number>();
  ownedByRole.set(role, owned);
  return delegateTo(owner, {
    adopt: async (shard: number, token: number, lease?: { valid(): boolean }) => {
      await owner.adopt(shard, token, lease);
      metrics.leaseAcquisitions.inc({ role });
      if (!owned.has(shard)) metrics.shardsOwned.inc({ role });
      owned.add(shard);
    },
    drop: async (shard: number) => {
      if (owned.delete(shard)) metrics.shardsOwned.dec({ role });
      await owner.drop(shard);
    },
    lost: (shard: number) => {
      metrics.leaseLosses.inc({ role });
      owner.lost?.(shard);
    },
  });
}

const ownedByRole = new Map<ShardRole, Set<number>>();

/** The shards this process serves in a role (as its observed shard owner saw them adopted). */
export function ownedShards(role: ShardRole): ReadonlySet<number> {
  return ownedByRole.get(role) ?? new Set();
}

/** Reports the event-stream lag of each shard this process's dispatcher owns, at every scrape. */
export function observeConsumerPending(source: { pending?(shard: number): Promise<number> }): void {
  const pending = source.pending?.bind(source);
  if (!pending) return;
  telemetry().watchConsumerPending(async () => {
    const shards = [...ownedShards('webhook-dispatcher')];
    const counts = await Promise.all(shards.map((shard) => pending(shard).catch(() => null)));
    return new Map(
      shards.flatMap((shard, i) => (counts[i] === null ? [] : [[shard, counts[i]] as [number, number]])),
    );
  });
}

type Headers = Readonly<Record<string, string>>;

/** What the spans of an event are named after: its kind (`message.received`). */
interface EventLike {
  headers?: Headers;
  payload: unknown;
}

interface PublisherLike<E extends EventLike> {
  publish(event: E): Promise<void>;
}

/**
 * Inbound events stored on the durable stream (or failing to be), each as a producer span
 * `events publish <event>` whose trace context the event carries in its headers to the dispatcher.
 */
export function observeInboundPublisher<E extends EventLike, T extends PublisherLike<E>>(events: T): T {
  const metrics = telemetry();
  return delegateTo(events, {
    publish: (event: E) =>
      inSpan(`events publish ${eventNameOf(event.payload)}`, { kind: SpanKind.PRODUCER }, async () => {
        const headers: Record<string, string> = { ...event.headers };
        propagation.inject(context.active(), headers);
        try {
          await events.publish({ ...event, headers });
          metrics.inboundPublished.inc({ outcome: 'published' });
        } catch (error) {
          metrics.inboundPublished.inc({ outcome: 'failed' });
          throw error;
        }
      }),
  });
}

interface PosterLike<D, R extends { status: string; durationMs: number }> {
  post(delivery: D): Promise<R>;
}

/** A delivery: its payload names the event; `trace` is the context its event was published with. */
interface DeliveryLike {
  payload: unknown;
  trace?: Headers;
}

/**
 * Webhook delivery attempts by outcome, with their latency; each a consumer span
 * `webhook deliver <event>` in the trace its event was published in (the POST is its child).
 */
export function observeWebhookPoster<
  D extends DeliveryLike,
  R extends { status: string; durationMs: number },
  T extends PosterLike<D, R>,
>(poster: T): T {
  const metrics = telemetry();
  return delegateTo(poster, {
    post: (delivery: D) => {
      const parent = delivery.trace
        ? propagation.extract(context.active(), delivery.trace)
        : context.active();
      return inSpan(
        `webhook deliver ${eventNameOf(delivery.payload)}`,
        { kind: SpanKind.CONSUMER },
        async (span) => {
          const record = await poster.post(delivery);
          span.setAttribute('jumbe.delivery.outcome', record.status);
          metrics.webhookDeliveries.inc({ outcome: record.status });
          metrics.webhookDuration.observe({ outcome: record.status }, record.durationMs / 1000);
          return record;
        },
        parent,
      );
    },
  });
}

function eventNameOf(payload: unknown): string {
  const event = (payload as { event?: unknown } | null | undefined)?.event;
  return typeof event === 'string' ? event : 'event';
}

/**
 * Starts timing one bus command (`command` is its type, e.g. message.send); call the returned
 * function with its outcome: ok, the error code of the reply, no_owner, timeout, bus_unavailable.
 */
export function observeBusCommand(command: string): (outcome: string) => void {
  const metrics = telemetry();
  const end = metrics.busDuration.startTimer({ command });
  return (outcome) => {
    end({ outcome });
    metrics.busCommands.inc({ command, outcome });
  };
}

/** A send request's outcome: `sent`, or the error code it failed with. */
export function countSend(type: string, outcome: string): void {
  telemetry().messagesSent.inc({ type, outcome });
}

/**
 * What the dispatcher decided after an opted-in account's delivery failed: `retry` (scheduled
 * after a backoff) or `give_up` (that was its last attempt).
 */
export function countRetryDecision(decision: 'retry' | 'give_up'): void {
  const metrics = telemetry();
  (decision === 'retry' ? metrics.webhookRetriesScheduled : metrics.webhookEventsGivenUp).inc();
}
