export type InvalidationHandler = (message: string) => void;

/**
 * Fire-and-forget broadcast to every process, used to drop cached state (e.g. a revoked API key
 * must stop working on every gateway within one second). Delivery is best effort: a subscriber
 * whose connection drops misses what was published meanwhile, and learns so through
 * `onPossibleLoss`, where caches drop everything they hold.
 */
export interface InvalidationBus {
  publish(topic: string, message: string): Promise<void>;

  /**
   * Registers `handler` for `topic`. Resolves once the subscription is live; if the store is
   * unreachable it still resolves, and the subscription goes live when the connection is back
   * (followed by `onPossibleLoss`), so a service can boot while Redis is down and heal later.
   * Returns the function that removes the handler again.
   */
  subscribe(topic: string, handler: InvalidationHandler): Promise<() => Promise<void>>;

  /**
   * `handler` runs whenever messages may have been missed, after the subscriptions are live again
   * (so a cache refilled right after it cannot miss a later invalidation). Returns the remover.
   */
  onPossibleLoss(handler: () => void): () => void;

  /** Stops delivering and releases the connection the bus owns. */
  close(): Promise<void>;
}
