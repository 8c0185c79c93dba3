import { lookup } from 'node:dns/promises';

/** Every address a host name resolves to, in the order the system would try them. */
export type HostResolver = (host: string) => Promise<string[]>;

/**
 * The system resolver (getaddrinfo, /etc/hosts included), exactly as Node's http client would
 * resolve the name itself: `dns.lookup`, not `dns.resolve`, so checks and connections agree.
 */
export const systemResolver: HostResolver = async (host) => {
  const results = await lookup(host, { all: true });
  return results.map((result) => result.address);
};
