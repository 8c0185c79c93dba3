// https-proxy-agent 9 and socks-proxy-agent 10 publish their types through `exports` only, which
// the workspace's `moduleResolution: node` does not read. What proxy-agents.ts uses of them:
declare module 'https-proxy-agent' {
  import type { Agent } from 'node:http';
  import type { LookupFunction } from 'node:net';

  /** An agent that tunnels every request through an HTTP(S) proxy with CONNECT. */
  export class HttpsProxyAgent extends Agent {
    constructor(proxy: string | URL, options?: { lookup?: LookupFunction; headers?: Record<string, string> });
  }
}

declare module 'socks-proxy-agent' {
  import type { Agent } from 'node:http';
  import type { LookupFunction } from 'node:net';

  /** An agent that tunnels every request through a SOCKS proxy. */
  export class SocksProxyAgent extends Agent {
    constructor(
      proxy: string | URL,
      options?: { socketOptions?: { lookup?: LookupFunction }; timeout?: number },
    );
  }
}
