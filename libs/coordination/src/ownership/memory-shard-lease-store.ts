import {
  assertValidFencingToken,
  assertValidShard,
  assertValidTtlMs,
  assertValidWorkerId,
} from './ownership-arguments';
import type { HeldLease, ShardLeaseHolder, ShardLeaseStore } from './shard-lease-store';

interface LiveLease extends ShardLeaseHolder {
  expiresAt: number;
}

/**
 * The all-in-one twin of RedisShardLeaseStore. Node runs each method body without interleaving,
 * which gives the same atomicity as the Lua scripts. The last token per shard is kept apart from
 * the lease and never forgotten, like the Redis token key, so tokens keep increasing across
 * releases and expiries.
 */
export class MemoryShardLeaseStore implements ShardLeaseStore {
  private readonly leases = new Map<number, LiveLease>();
  private readonly lastTokens = new Map<number, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async acquire(shard: number, workerId: string, ttlMs: number): Promise<number | null> {
    assertValidShard(shard);
    assertValidWorkerId(workerId);
    assertValidTtlMs(ttlMs);
    const held = this.live(shard);
    if (held) {
      if (held.workerId !== workerId) return null;
      held.expiresAt = this.now() + ttlMs;
      return held.token;
    }
    const token = (this.lastTokens.get(shard) ?? 0) + 1;
    this.lastTokens.set(shard, token);
    this.leases.set(shard, { workerId, token, expiresAt: this.now() + ttlMs });
    return token;
  }

  async renew(shard: number, workerId: string, token: number, ttlMs: number): Promise<boolean> {
    assertValidShard(shard);
    assertValidWorkerId(workerId);
    assertValidFencingToken(token);
    assertValidTtlMs(ttlMs);
    const held = this.live(shard);
    if (!held || held.workerId !== workerId || held.token !== token) return false;
    held.expiresAt = this.now() + ttlMs;
    return true;
  }

  async renewAll(workerId: string, held: readonly HeldLease[], ttlMs: number): Promise<number[]> {
    const renewed: number[] = [];
    for (const { shard, token } of held) {
      if (await this.renew(shard, workerId, token, ttlMs)) renewed.push(shard);
    }
    return renewed;
  }

  async release(shard: number, workerId: string, token: number): Promise<void> {
    assertValidShard(shard);
    assertValidWorkerId(workerId);
    assertValidFencingToken(token);
    const held = this.live(shard);
    if (held && held.workerId === workerId && held.token === token) this.leases.delete(shard);
  }

  async holder(shard: number): Promise<ShardLeaseHolder | null> {
    assertValidShard(shard);
    const held = this.live(shard);
    return held ? { workerId: held.workerId, token: held.token } : null;
  }

  /** The shard's lease unless it has expired (then it is dropped, as Redis would drop the key). */
  private live(shard: number): LiveLease | undefined {
    const held = this.leases.get(shard);
    if (held && held.expiresAt <= this.now()) {
      this.leases.delete(shard);
      return undefined;
    }
    return held;
  }
}
