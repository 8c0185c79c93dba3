import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
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

/** How many new keys between two sweeps of the keys left without a connection. */
const SWEEP_EVERY = 256;

/**
 * Kept-alive connections for requests to customer-given URLs, so a busy webhook is not paying a
 * TCP (and TLS) handshake per delivery. Safe to share only because:
 * - every NEW connection goes through the connect-time guard of this pool's policy (the agents
 *   force it as their `lookup`, whatever a request passes), and a connection is only ever reused
 *   for the same host and port it was opened to (Node's agent key), i.e. to an address that was
 *   checked when it was opened;
 * - connections are kept apart per key (the account, for webhooks): nothing is shared between
 *   customers, not even with a receiver that two accounts point at;
 * - a connection is reused only once its previous response was read to the end; one left
 *   mid-response (truncated, timed out, failed) is destroyed, never pooled.
 */
export class ConnectionPool {
  readonly allowPrivateNetworks: boolean;
  readonly resolver: HostResolver | undefined;
  private readonly agentOptions: http.AgentOptions & { lookup: LookupFunction };
  private readonly agents = new Map<string, http.Agent>();
  private created = 0;

  constructor(options: ConnectionPoolOptions) {
    this.allowPrivateNetworks = options.allowPrivateNetworks;
    this.resolver = options.resolver;
    const maxSockets = options.maxSocketsPerDestination ?? 32;
    this.agentOptions = {
      keepAlive: true,
      maxSockets,
      maxFreeSockets: maxSockets,
      timeout: options.idleTimeoutMs ?? 4_000,
      // The connection used last is the least likely to have been closed by its server meanwhile.
      scheduling: 'lifo',
      lookup: createGuardedLookup(options),
    };
  }

  /** The agent holding `key`'s connections for the URL's protocol. */
  agentFor(url: URL, key: string): http.Agent {
    const name = `${url.protocol}${key}`;
    let agent = this.agents.get(name);
    if (agent === undefined) {
      this.sweep();
      agent =
        url.protocol === 'https:' ? new https.Agent(this.agentOptions) : new http.Agent(this.agentOptions);
      this.agents.set(name, agent);
    }
    return agent;
  }

  /** Closes every connection, idle or in use. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /** A key whose connections all closed costs nothing to recreate: forget it, so the map stays bounded. */
  private sweep(): void {
    this.created += 1;
    if (this.created % SWEEP_EVERY !== 0) return;
    for (const [name, agent] of this.agents) {
      const open = Object.keys(agent.sockets).length + Object.keys(agent.freeSockets).length;
      if (open === 0 && Object.keys(agent.requests).length === 0) this.agents.delete(name);
    }
  }
}
