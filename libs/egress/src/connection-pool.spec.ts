import type { Socket } from 'node:net';
import { BlockedAddressError } from './blocked-address-error';
import { ConnectionPool } from './connection-pool';
import { safeFetch } from './safe-fetch';
import { fakeResolver } from './test-support/fake-resolver';
import { startLocalServer, type LocalServer } from './test-support/local-server';

// Every peer is a server on 127.0.0.1 of this process, reached under a name from a fake resolver.
describe('safeFetch through a ConnectionPool', () => {
  const servers: LocalServer[] = [];
  const pools: ConnectionPool[] = [];
  afterEach(async () => {
    for (const pool of pools.splice(0)) pool.close();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function answering(body = 'ok'): Promise<LocalServer> {
    const server = await startLocalServer((request, response) => {
      request.resume();
      request.on('end', () => response.end(body));
    });
    servers.push(server);
    return server;
  }

  function pool(options: ConstructorParameters<typeof ConnectionPool>[0]): ConnectionPool {
    const made = new ConnectionPool(options);
    pools.push(made);
    return made;
  }

  const post = (url: string, connections: ConnectionPool, poolKey: string, maxResponseBytes = 1024) =>
    safeFetch(url, {
      method: 'POST',
      body: '{}',
      allowPrivateNetworks: connections.allowPrivateNetworks,
      resolver: connections.resolver,
      pool: connections,
      poolKey,
      maxResponseBytes,
    });

  it('reuses connections for one key and destination; the name is resolved and checked only to open one', async () => {
    const server = await answering();
    const resolver = fakeResolver(['127.0.0.1']);
    const connections = pool({ allowPrivateNetworks: true, resolver });
    for (let i = 0; i < 10; i += 1) {
      expect((await post(`http://hooks.test:${server.port}/hook`, connections, 'account-a')).status).toBe(
        200,
      );
    }
    expect(server.requests).toHaveLength(10);
    // One in a row may go out on a second connection: undici checks an idle connection for a
    // close from the server before reusing it, and a request sent meanwhile takes another.
    expect(server.connections).toBeLessThanOrEqual(2);
    expect(resolver.calls).toEqual(Array(server.connections).fill('hooks.test'));
  });

  it("keeps each key's connections apart: nothing is shared between accounts", async () => {
    const server = await answering();
    const connections = pool({ allowPrivateNetworks: true });
    await post(`${server.origin}/hook`, connections, 'account-a');
    await post(`${server.origin}/hook`, connections, 'account-b');
    await post(`${server.origin}/hook`, connections, 'account-a');
    expect(server.connections).toBe(2);
  });

  it('refuses at connect time a new connection to a name that resolves to a private address', async () => {
    const server = await answering();
    const connections = pool({ allowPrivateNetworks: false, resolver: fakeResolver(['127.0.0.1']) });
    await expect(post(`http://hooks.test:${server.port}/hook`, connections, 'a')).rejects.toBeInstanceOf(
      BlockedAddressError,
    );
    expect(server.connections).toBe(0);
  });

  it('never reuses a connection whose response was not read to the end', async () => {
    const server = await answering('x'.repeat(64 * 1024));
    const connections = pool({ allowPrivateNetworks: true });
    const first = await post(`${server.origin}/hook`, connections, 'a', 16);
    expect(first.truncated).toBe(true);
    await post(`${server.origin}/hook`, connections, 'a', 16);
    const [truncated, next] = server.requests.map((request) => request.socket);
    expect(next).not.toBe(truncated);
    expect(truncated!.destroyed).toBe(true);
  });

  it('sends once more on a new connection when the server closed the reused one before answering', async () => {
    // As a server whose idle timeout fires just as the connection is reused: the second request
    // on a connection finds it closed, unanswered.
    const seen = new WeakMap<Socket, number>();
    const server = await startLocalServer((request, response) => {
      const count = (seen.get(request.socket) ?? 0) + 1;
      seen.set(request.socket, count);
      if (count > 1) return void request.socket.destroy();
      request.resume();
      request.on('end', () => response.end('ok'));
    });
    servers.push(server);
    const connections = pool({ allowPrivateNetworks: true });
    expect((await post(`${server.origin}/hook`, connections, 'a')).status).toBe(200);
    expect((await post(`${server.origin}/hook`, connections, 'a')).status).toBe(200);
    expect(server.connections).toBe(2);
  });

  it('refuses a pool built for another address policy', async () => {
    const server = await answering();
    const connections = pool({ allowPrivateNetworks: false });
    await expect(
      safeFetch(server.origin, { allowPrivateNetworks: true, pool: connections }),
    ).rejects.toBeInstanceOf(TypeError);
    expect(server.connections).toBe(0);
  });
});
