import type { InvalidationBus, InvalidationHandler } from './invalidation-bus';
import type { CoordinationLogger } from './coordination-logger';

/**
 * The all-in-one twin of RedisInvalidationBus: one process, so delivery is immediate (before
 * `publish` resolves) and nothing can be lost; `onPossibleLoss` handlers never run.
 */
export class MemoryInvalidationBus implements InvalidationBus {
  private readonly handlers = new Map<string, Set<InvalidationHandler>>();

  constructor(private readonly logger?: CoordinationLogger) {}

  async publish(topic: string, message: string): Promise<void> {
    // A copy, so a handler that unsubscribes while being called does not disturb the loop.
    for (const handler of [...(this.handlers.get(topic) ?? [])]) {
      try {
        handler(message);
      } catch (error) {
        // As with Redis, a failing subscriber must not fail the publisher.
        this.logger?.(`invalidation handler for ${topic} failed`, error);
      }
    }
  }

  async subscribe(topic: string, handler: InvalidationHandler): Promise<() => Promise<void>> {
    // Wrapped so that the same function subscribed twice is two subscriptions, as with Redis.
    const registration: InvalidationHandler = (message) => handler(message);
    const registrations = this.handlers.get(topic) ?? new Set<InvalidationHandler>();
    registrations.add(registration);
    this.handlers.set(topic, registrations);
    return async () => {
      registrations.delete(registration);
      if (registrations.size === 0 && this.handlers.get(topic) === registrations) this.handlers.delete(topic);
    };
  }

  onPossibleLoss(_handler: () => void): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
