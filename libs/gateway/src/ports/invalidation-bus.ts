/**
 * Cache invalidations shared by every gateway, best effort (InvalidationBus of @jumbe/coordination
 * satisfies it): a revoked key or a changed webhook must stop being served from any gateway's cache.
 */
export interface InvalidationBus {
  publish(topic: string, message: string): Promise<void>;
  /** Resolves once the subscription is live (or will be, when the store is back); returns its remover. */
  subscribe(topic: string, handler: (message: string) => void): Promise<() => Promise<void>>;
  /** `handler` runs whenever messages may have been missed: caches then drop everything. */
  onPossibleLoss(handler: () => void): () => void;
}
