import { Pool, type Dispatcher } from 'undici';
import { createGuardedLookup } from './create-guarded-lookup';
import type { EgressPolicyOptions } from './egress-policy-options';
import type { HostResolver } from './host-resolver';

export interface ConnectionPoolOptions extends EgressPolicyOptions {
  /** Connections open at once to one destination under one key; further requests wait for one. Default 32. */
  maxSocketsPerDestination?: number;
  /**
   * An idle connection is closed after this long, or a second before the server's own
   * `Keep-Alive: timeout=` if that is shorter, so a connection is seldom reused just as the
   * server closes it. Default 4 000 ms.
   */
  idleTimeoutMs?: number;
}

/** How many new pools between two sweeps of the pools left without a connection. */
const SWEEP_EVERY = 256;

/**
 * Kept-alive connections for requests to customer-given URLs, so a busy webhook is not paying a
 * TCP (and TLS) handshake per delivery. Safe to share only because:
 * - every NEW connection goes through the connect-time guard of this pool's policy (undici's
 *   connector passes it to `net.connect`/`tls.connect` as their `lookup`), and a connection is
 *   only ever reused for the origin it was opened to, i.e. to an address checked when it opened;
 * - connections are kept apart per key (the account, for webhooks): nothing is shared between
 *   customers, not even with a receiver that two accounts point at;
 * - a connection is reused only once its previous response was read to the end; one left
 *   mid-response (truncated, timed out, failed) is destroyed, never pooled.
 *
 * Built on undici rather than node:http's agents: the same work per request at about half the CPU
 * (one webhook POST is most of a dispatcher's CPU per event; BENCHMARKS.md, inbound).
 */
export class ConnectionPool {
  readonly allowPrivateNetworks: boolean;
  readonly resolver: HostResolver | undefined;
  private readonly poolOptions: Pool.Options;
  /** Per key and origin. (Not undici's Agent: it closes an origin's pool as its last connection
   * drops, racing the next request into extra connections.) */
  private readonly pools = new Map<string, Pool>();
  private created = 0;

  constructor(options: ConnectionPoolOptions) {
    this.allowPrivateNetworks = options.allowPrivateNetworks;
    this.resolver = options.resolver;
    const idle = options.idleTimeoutMs ?? 4_000;
    this.poolOptions = {
      connections: options.maxSocketsPerDestination ?? 32,
      keepAliveTimeout: idle,
      keepAliveMaxTimeout: idle,
      keepAliveTimeoutThreshold: 1_000,
      connect: { lookup: createGuardedLookup(options) },
    };
  }

  /** What sends `key`'s requests to the URL's origin, over that key's connections only. */
  dispatcherFor(url: URL, key: string): Dispatcher {
    const name = `${key}\n${url.origin}`;
    let pool = this.pools.get(name);
    if (pool === undefined) {
      this.sweep();
      pool = new Pool(url.origin, this.poolOptions);
      this.pools.set(name, pool);
    }
    return pool;
  }

  /** Closes every connection, idle or in use. */
  close(): void {
    for (const pool of this.pools.values()) void pool.destroy().catch(() => undefined);
    this.pools.clear();
  }

  /** A pool without connections or requests costs nothing to recreate: drop it, so the map stays bounded. */
  private sweep(): void {
    this.created += 1;
    if (this.created % SWEEP_EVERY !== 0) return;
    for (const [name, pool] of this.pools) {
      const { connected, size } = pool.stats;
      if (connected === 0 && size === 0) {
        this.pools.delete(name);
        void pool.close().catch(() => undefined);
      }
    }
  }
}
