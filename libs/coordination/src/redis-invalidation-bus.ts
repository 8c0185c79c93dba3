import type Redis from 'ioredis';
import { closeRedisClient } from './close-redis-client';
import type { CoordinationLogger } from './coordination-logger';
import type { InvalidationBus, InvalidationHandler } from './invalidation-bus';
import { isRedisConnectionFailure, withRedisFailuresTranslated } from './redis-connection-failure';
import { waitForRedisReady } from './wait-for-redis-ready';

/** How long `subscribe` waits for a subscriber connection that is still being made. */
const SUBSCRIBER_READY_WAIT_MS = 1_000;

const CHANNEL_PREFIX = 'jumbe:invalidate:';

export function invalidationChannel(topic: string): string {
  return `${CHANNEL_PREFIX}${topic}`;
}

/**
 * InvalidationBus over Redis PUB/SUB. Publishing uses the shared request-path client; receiving
 * needs a connection of its own (a subscribed connection can run nothing else), which the bus
 * makes with `subscriberFactory` on first subscribe and owns from then on.
 *
 * PUB/SUB keeps no backlog, so whatever is published while the subscriber is disconnected is gone.
 * The bus notices every disconnection and, once it is connected and subscribed again, calls the
 * `onPossibleLoss` handlers so that caches can start over.
 */
export class RedisInvalidationBus implements InvalidationBus {
  private subscriber: Redis | undefined;
  private readonly handlers = new Map<string, Set<InvalidationHandler>>();
  private readonly lossHandlers = new Set<() => void>();
  /** Topics whose first SUBSCRIBE is under way. */
  private readonly goingLive = new Map<string, Promise<void>>();
  /** Set when messages may have been missed; cleared once the subscriptions are live again. */
  private interrupted = false;
  private closed = false;

  constructor(
    private readonly publisher: Redis,
    private readonly subscriberFactory: () => Redis,
    private readonly logger?: CoordinationLogger,
  ) {}

  async publish(topic: string, message: string): Promise<void> {
    await withRedisFailuresTranslated('invalidation publish', () =>
      this.publisher.publish(invalidationChannel(topic), message),
    );
  }

  async subscribe(topic: string, handler: InvalidationHandler): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('InvalidationBus is closed');
    const registration: InvalidationHandler = (message) => handler(message);
    let registrations = this.handlers.get(topic);
    const firstForTopic = registrations === undefined;
    if (!registrations) {
      registrations = new Set();
      this.handlers.set(topic, registrations);
    }
    registrations.add(registration);
    const unsubscribe = () => this.unsubscribe(topic, registration);

    // Later subscribers of a topic wait for the same SUBSCRIBE as the first one.
    let live = this.goingLive.get(topic);
    if (firstForTopic) {
      live = this.makeLive(topic).finally(() => this.goingLive.delete(topic));
      this.goingLive.set(topic, live);
    }
    try {
      await live;
    } catch (error) {
      await unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  onPossibleLoss(handler: () => void): () => void {
    // Wrapped so that the same function registered twice is two registrations.
    const registration = () => handler();
    this.lossHandlers.add(registration);
    return () => {
      this.lossHandlers.delete(registration);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handlers.clear();
    this.lossHandlers.clear();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (!subscriber) return;
    subscriber.removeAllListeners('message');
    await closeRedisClient(subscriber);
  }

  /** SUBSCRIBEs one topic; connection trouble only postpones it (see `restore`). */
  private async makeLive(topic: string): Promise<void> {
    const subscriber = this.ensureSubscriber();
    try {
      await waitForRedisReady(subscriber, SUBSCRIBER_READY_WAIT_MS);
      await subscriber.subscribe(invalidationChannel(topic));
    } catch (error) {
      if (!isRedisConnectionFailure(error)) throw error;
      // Not live yet: the 'ready' handler subscribes every registered topic when the
      // connection is back, then reports a possible loss, which covers this gap too.
      this.interrupted = true;
      this.logger?.(
        `invalidation subscription to ${topic} is not live yet; it will be when Redis is back`,
        error,
      );
    }
  }

  private async unsubscribe(topic: string, registration: InvalidationHandler): Promise<void> {
    const registrations = this.handlers.get(topic);
    if (!registrations?.delete(registration) || registrations.size > 0) return;
    this.handlers.delete(topic);
    if (this.subscriber?.status !== 'ready') return;
    try {
      await this.subscriber.unsubscribe(invalidationChannel(topic));
    } catch (error) {
      // Harmless: messages for a topic nobody handles are ignored.
      if (!isRedisConnectionFailure(error)) throw error;
    }
  }

  private ensureSubscriber(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.subscriberFactory();
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, message: string) => this.deliver(channel, message));
    subscriber.on('close', () => {
      if (this.subscriber === subscriber) this.interrupted = true;
    });
    subscriber.on('ready', () => {
      if (this.subscriber === subscriber) void this.restore(subscriber);
    });
    return subscriber;
  }

  /**
   * Subscribes every registered topic on a (re)established connection, then reports a possible
   * loss if the connection had been interrupted. ioredis may resubscribe on its own as well;
   * subscribing twice is harmless, and awaiting our own SUBSCRIBE is what proves the
   * subscriptions are live before the loss handlers run.
   */
  private async restore(subscriber: Redis): Promise<void> {
    const wasInterrupted = this.interrupted;
    this.interrupted = false;
    const channels = [...this.handlers.keys()].map(invalidationChannel);
    try {
      if (channels.length > 0) await subscriber.subscribe(...channels);
    } catch (error) {
      // The connection failed again; the next 'ready' retries.
      if (wasInterrupted) this.interrupted = true;
      this.logger?.('invalidation subscriptions could not be restored yet', error);
      return;
    }
    if (wasInterrupted && !this.closed) this.reportPossibleLoss();
  }

  private reportPossibleLoss(): void {
    for (const handler of [...this.lossHandlers]) {
      try {
        handler();
      } catch (error) {
        this.logger?.('invalidation loss handler failed', error);
      }
    }
  }

  private deliver(channel: string, message: string): void {
    if (!channel.startsWith(CHANNEL_PREFIX)) return;
    const topic = channel.slice(CHANNEL_PREFIX.length);
    for (const handler of [...(this.handlers.get(topic) ?? [])]) {
      try {
        handler(message);
      } catch (error) {
        // One failing cache must not keep the others from being invalidated.
        this.logger?.(`invalidation handler for ${topic} failed`, error);
      }
    }
  }
}
