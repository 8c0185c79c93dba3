/**
 * The memory the main thread and the lease upkeep thread share, indexed by shard (the thread's side
 * is in lease-upkeep-thread.cjs, which describes the same layout). Every access is atomic; epoch
 * milliseconds and fencing tokens do not fit 32 bits, hence BigInt64Array.
 *
 * The main thread writes `tokens` (hold, let go) and its liveness stamp; the thread writes
 * `renewedAt` (only forwards, only for the token still held) and marks a lease `lost` (clearing
 * its token with a compare-exchange, so a shard re-acquired meanwhile is never marked).
 */
export class SharedLeaseTable {
  readonly buffers: {
    tokens: SharedArrayBuffer;
    renewedAt: SharedArrayBuffer;
    lost: SharedArrayBuffer;
    control: SharedArrayBuffer;
  };
  private readonly tokens: BigInt64Array;
  private readonly renewed: BigInt64Array;
  private readonly lost: BigInt64Array;
  private readonly control: BigInt64Array;

  constructor(readonly shardCount: number) {
    const perShard = () => new SharedArrayBuffer(shardCount * BigInt64Array.BYTES_PER_ELEMENT);
    this.buffers = {
      tokens: perShard(),
      renewedAt: perShard(),
      lost: perShard(),
      control: new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT),
    };
    this.tokens = new BigInt64Array(this.buffers.tokens);
    this.renewed = new BigInt64Array(this.buffers.renewedAt);
    this.lost = new BigInt64Array(this.buffers.lost);
    this.control = new BigInt64Array(this.buffers.control);
  }

  /** The time first, then the token: the thread never sees a token without its time. */
  hold(shard: number, token: number, acquireSentAt: number): void {
    Atomics.store(this.renewed, shard, BigInt(acquireSentAt));
    Atomics.store(this.lost, shard, 0n);
    Atomics.store(this.tokens, shard, BigInt(token));
  }

  letGo(shard: number): void {
    Atomics.store(this.tokens, shard, 0n);
    Atomics.store(this.lost, shard, 0n);
  }

  /** Null when the thread found this grant lost. */
  renewedAt(shard: number, token: number): number | null {
    if (Atomics.load(this.lost, shard) === BigInt(token)) return null;
    return Number(Atomics.load(this.renewed, shard));
  }

  stampAlive(now: number): void {
    Atomics.store(this.control, 0, BigInt(now));
  }
}
