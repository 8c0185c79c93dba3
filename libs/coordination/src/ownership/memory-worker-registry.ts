import { assertValidTtlMs, assertValidWorkerId } from './ownership-arguments';
import type { WorkerRegistry } from './worker-registry';

/** The all-in-one twin of RedisWorkerRegistry: worker id → when its last heartbeat expires. */
export class MemoryWorkerRegistry implements WorkerRegistry {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async heartbeat(workerId: string, ttlMs: number): Promise<void> {
    assertValidWorkerId(workerId);
    assertValidTtlMs(ttlMs);
    this.expiries.set(workerId, this.now() + ttlMs);
  }

  async leave(workerId: string): Promise<void> {
    assertValidWorkerId(workerId);
    this.expiries.delete(workerId);
  }

  async liveWorkers(): Promise<string[]> {
    const now = this.now();
    for (const [workerId, expiresAt] of this.expiries) {
      if (expiresAt <= now) this.expiries.delete(workerId);
    }
    return [...this.expiries.keys()].sort();
  }
}
