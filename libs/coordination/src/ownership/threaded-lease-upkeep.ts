import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { REDIS_MAX_RECONNECT_DELAY_MS, type RedisClientOptions } from '../redis-client';
import type { LeaseUpkeep, LeaseUpkeepLogger, LeaseUpkeepPlan } from './lease-upkeep';
import { DEFAULT_OWNERSHIP_KEY_PREFIX } from './ownership-key-prefix';
import { SHARD_LEASE_RENEW_SCRIPT, shardLeaseKey } from './redis-shard-lease-store';
import { WORKER_HEARTBEAT_SCRIPT, workerRegistryKey } from './redis-worker-registry';
import { SharedLeaseTable } from './shared-lease-table';

/** Plain JavaScript, so it runs as is from src/ (Jest) and from dist/ (copied there by the build). */
const THREAD_FILE = join(__dirname, 'lease-upkeep-thread.cjs');

/** How long the thread may take to connect at start before the keeper goes on without waiting. */
const READY_WAIT_MS = 5_000;
/** How long stop waits for the thread's last round trip before terminating it. */
const STOP_WAIT_MS = 5_000;
/** Pause before starting the thread again after it died (a crash, not a stop). */
const RESTART_DELAY_MS = 1_000;

export interface ThreadedLeaseUpkeepOptions {
  /** The process's Redis: its URL and createRedisClient's options (`redisClientOptions`). */
  redisUrl: string;
  redisOptions: RedisClientOptions;
  /** The ownership key prefix of the role, as given to its RedisShardLeaseStore and RedisWorkerRegistry. */
  keyPrefix?: string;
  /**
   * The thread renews (and heartbeats) only while the main thread has stamped its liveness within
   * this long: past it, a wedged process lets its leases expire and its shards go to other members
   * (JUMBE_STALL_LIMIT_SECONDS).
   */
  stallLimitMs: number;
  /** Also keep the member's registry heartbeat from the thread, in the same round trip (default true). */
  heartbeat?: boolean;
}

type ThreadMessage =
  | { kind: 'ready' }
  | { kind: 'warn'; message: string; error?: string }
  | { kind: 'paused'; silentMs: number }
  | { kind: 'stalled'; silentMs: number }
  | { kind: 'resumed' };

/**
 * Lease upkeep on a worker thread of its own, with its own Redis connection (for
 * RedisShardLeaseStore). A process with hundreds of busy sessions can starve its main thread of
 * CPU for many seconds; the kernel schedules a thread that mostly sleeps promptly even then, so
 * the renewals go on and the shards stay put instead of being dropped, retaken and restored over
 * and over. The keeper still decides everything: it reads from the shared memory when each lease
 * was last renewed and drops a shard exactly as it did (fencing is as strong: a renewal counts
 * from when it was sent, whichever thread sent it). The member's registry heartbeat rides along,
 * so a starved member does not drop out of the assignment either.
 *
 * Bounded: the main thread stamps its liveness on every guard pass; when it has not for
 * `stallLimitMs`, the thread stops renewing and heartbeating, so a wedged process loses its
 * shards to the others as before, only later.
 */
export class ThreadedLeaseUpkeep implements LeaseUpkeep {
  private table: SharedLeaseTable | null = null;
  private plan: LeaseUpkeepPlan | null = null;
  private worker: Worker | null = null;
  private stopping = false;
  private restart: NodeJS.Timeout | null = null;
  /** Stamped before the table exists (the keeper stamps before it starts the upkeep). */
  private firstStamp = Date.now();

  constructor(private readonly options: ThreadedLeaseUpkeepOptions) {
    if (!(Number.isSafeInteger(options.stallLimitMs) && options.stallLimitMs > 0)) {
      throw new RangeError(`stallLimitMs must be a positive integer, got ${options.stallLimitMs}`);
    }
  }

  async start(plan: LeaseUpkeepPlan): Promise<void> {
    if (this.table) throw new Error('lease upkeep already started');
    this.plan = plan;
    this.table = new SharedLeaseTable(plan.shardCount);
    this.table.stampAlive(this.firstStamp);
    await this.spawn(plan, this.table);
  }

  hold(shard: number, token: number, acquireSentAt: number): void {
    this.started().hold(this.checked(shard), token, acquireSentAt);
  }

  letGo(shard: number): void {
    this.started().letGo(this.checked(shard));
  }

  renewedAt(shard: number, token: number): number | null {
    return this.started().renewedAt(this.checked(shard), token);
  }

  alive(now: number): void {
    if (this.table) this.table.stampAlive(now);
    else this.firstStamp = now;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restart) clearTimeout(this.restart);
    const worker = this.worker;
    if (!worker) return;
    // Kept alive until it has exited: the keeper leaves the registry only after that.
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ kind: 'stop' });
    const timer = setTimeout(() => void worker.terminate(), STOP_WAIT_MS);
    await exited;
    clearTimeout(timer);
    this.worker = null;
  }

  /** Starts the thread; resolves once its connection is ready (or READY_WAIT_MS passed). */
  private spawn(plan: LeaseUpkeepPlan, table: SharedLeaseTable): Promise<void> {
    const keyPrefix = this.options.keyPrefix ?? DEFAULT_OWNERSHIP_KEY_PREFIX;
    const worker = new Worker(THREAD_FILE, {
      name: `lease upkeep ${plan.memberId}`,
      workerData: {
        redisUrl: this.options.redisUrl,
        redisOptions: this.options.redisOptions,
        maxReconnectDelayMs: REDIS_MAX_RECONNECT_DELAY_MS,
        memberId: plan.memberId,
        leaseTtlMs: plan.leaseTtlMs,
        renewEveryMs: plan.renewEveryMs,
        stallLimitMs: this.options.stallLimitMs,
        renewScript: SHARD_LEASE_RENEW_SCRIPT,
        leaseKeys: Array.from({ length: plan.shardCount }, (_, shard) => shardLeaseKey(shard, keyPrefix)),
        heartbeat:
          this.options.heartbeat === false
            ? null
            : {
                script: WORKER_HEARTBEAT_SCRIPT,
                registryKey: workerRegistryKey(keyPrefix),
                ttlMs: plan.heartbeatTtlMs,
              },
        memory: table.buffers,
      },
    });
    // Never what keeps a process alive: the keeper stops it, and a process exiting ends it.
    worker.unref();
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (error?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(() => {
        plan.logger.warn(
          { waitedMs: READY_WAIT_MS },
          'lease upkeep: Redis not ready yet; renewing once it is',
        );
        settle();
      }, READY_WAIT_MS);
      worker.on('message', (message: ThreadMessage) => {
        if (message.kind === 'ready') settle();
        else report(plan.logger, message);
      });
      worker.on('error', (error) => {
        plan.logger.error?.({ err: error }, 'lease upkeep thread failed');
        settle(error);
      });
      worker.on('exit', (code) => {
        settle(new Error(`lease upkeep thread exited (code ${code}) before it was ready`));
        if (this.worker === worker) this.worker = null;
        if (this.stopping) return;
        // Died on its own: the leases are still held here; renew them from a new thread.
        plan.logger.warn({ code }, 'lease upkeep thread exited; starting it again');
        this.restart = setTimeout(() => {
          this.restart = null;
          if (!this.stopping) this.spawn(plan, table).catch(() => undefined);
        }, RESTART_DELAY_MS);
      });
    });
  }

  private started(): SharedLeaseTable {
    if (!this.table) throw new Error('lease upkeep not started');
    return this.table;
  }

  private checked(shard: number): number {
    if (!(Number.isSafeInteger(shard) && shard >= 0 && shard < (this.plan?.shardCount ?? 0))) {
      throw new RangeError(
        `shard must be an integer from 0 to ${(this.plan?.shardCount ?? 0) - 1}, got ${shard}`,
      );
    }
    return shard;
  }
}

function report(logger: LeaseUpkeepLogger, message: ThreadMessage): void {
  switch (message.kind) {
    case 'warn':
      logger.warn(message.error ? { err: { message: message.error } } : {}, message.message);
      break;
    case 'paused':
      logger.warn(
        { silentForMs: message.silentMs },
        'main thread unresponsive past the stall limit: lease renewal paused, shards will go to other members',
      );
      break;
    case 'stalled':
      logger.warn(
        { stalledForMs: message.silentMs },
        'main thread stalled (starved of CPU or blocked); its leases were kept by the upkeep thread',
      );
      break;
    case 'resumed':
      logger.warn({}, 'main thread responsive again: lease renewal resumed');
      break;
    default:
      break;
  }
}
