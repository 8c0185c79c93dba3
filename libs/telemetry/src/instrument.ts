import { type ShardRole, telemetry } from './telemetry';

/**
 * Small wrappers that observe the parts of a service without changing them: each returns an
 * object that behaves as the one given and counts what passes through it.
 */

interface ShardOwnerLike {
  adopt(shard: number, token: number): Promise<void>;
  drop(shard: number): Promise<void>;
}

/** Shards owned and lease acquisitions (a shard adopted) of one role. */
export function observeShardOwner<T extends ShardOwnerLike>(role: ShardRole, owner: T): T {
  const metrics = telemetry();
  const owned = new Set<number>();
  ownedByRole.set(role, owned);
  return wrap(owner, {
    adopt: async (shard: number, token: number) => {
      await owner.adopt(shard, token);
      metrics.leaseAcquisitions.inc({ role });
      if (!owned.has(shard)) metrics.shardsOwned.inc({ role });
      owned.add(shard);
    },
    drop: async (shard: number) => {
      if (owned.delete(shard)) metrics.shardsOwned.dec({ role });
      await owner.drop(shard);
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

interface LeaseStoreLike {
  renew(shard: number, memberId: string, token: number, ttlMs: number): Promise<boolean>;
}

/** Lease losses: a renewal the store refused (another member holds the shard, or it expired). */
export function observeLeaseLosses<T extends LeaseStoreLike>(role: ShardRole, leases: T): T {
  const metrics = telemetry();
  return wrap(leases, {
    renew: async (shard: number, memberId: string, token: number, ttlMs: number) => {
      const renewed = await leases.renew(shard, memberId, token, ttlMs);
      if (!renewed) metrics.leaseLosses.inc({ role });
      return renewed;
    },
  });
}

interface PublisherLike<E> {
  publish(event: E): Promise<void>;
}

/** Inbound events stored on the durable stream (or failing to be). */
export function observeInboundPublisher<E, T extends PublisherLike<E>>(events: T): T {
  const metrics = telemetry();
  return wrap(events, {
    publish: async (event: E) => {
      try {
        await events.publish(event);
        metrics.inboundPublished.inc({ outcome: 'published' });
      } catch (error) {
        metrics.inboundPublished.inc({ outcome: 'failed' });
        throw error;
      }
    },
  });
}

interface PosterLike<D, R extends { status: string; durationMs: number }> {
  post(delivery: D): Promise<R>;
}

/** Webhook delivery attempts by outcome, with their latency. */
export function observeWebhookPoster<
  D,
  R extends { status: string; durationMs: number },
  T extends PosterLike<D, R>,
>(poster: T): T {
  const metrics = telemetry();
  return wrap(poster, {
    post: async (delivery: D) => {
      const record = await poster.post(delivery);
      metrics.webhookDeliveries.inc({ outcome: record.status });
      metrics.webhookDuration.observe({ outcome: record.status }, record.durationMs / 1000);
      return record;
    },
  });
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

function wrap<T extends object>(target: T, overrides: object): T {
  return Object.assign(Object.create(target) as T, overrides);
}
