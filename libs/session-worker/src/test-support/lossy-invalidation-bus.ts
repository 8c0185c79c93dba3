import { MemoryInvalidationBus, type InvalidationBus, type InvalidationHandler } from '@jumbe/coordination';

/**
 * The real in-memory bus, plus what it never does on its own: report that messages may have been
 * lost (as RedisInvalidationBus does after a reconnect). Publishing and subscribing are untouched.
 */
export class LossyInvalidationBus implements InvalidationBus {
  private readonly inner = new MemoryInvalidationBus();
  private readonly lossHandlers = new Set<() => void>();

  publish(topic: string, message: string): Promise<void> {
    return this.inner.publish(topic, message);
  }

  subscribe(topic: string, handler: InvalidationHandler): Promise<() => Promise<void>> {
    return this.inner.subscribe(topic, handler);
  }

  onPossibleLoss(handler: () => void): () => void {
    const registration = () => handler();
    this.lossHandlers.add(registration);
    return () => this.lossHandlers.delete(registration);
  }

  /** What a reconnect after an outage looks like to subscribers. */
  simulatePossibleLoss(): void {
    for (const handler of [...this.lossHandlers]) handler();
  }

  close(): Promise<void> {
    this.lossHandlers.clear();
    return this.inner.close();
  }
}
