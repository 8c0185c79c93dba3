import { createServer as createHttpsServer } from 'node:https';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { BlockedAddressError } from './blocked-address-error';
import { EgressConnectionError } from './egress-connection-error';
import { EgressInvalidUrlError } from './egress-invalid-url-error';
import { EgressTimeoutError } from './egress-timeout-error';
import { safeFetch } from './safe-fetch';
import { dnsNotFound, fakeResolver } from './test-support/fake-resolver';
import { startLocalServer, unusedPort, type LocalServer } from './test-support/local-server';
import { selfSignedCert, selfSignedKey } from './test-support/self-signed-certificate';
import { UrlPolicy } from './url-policy';

// Every peer is a server on 127.0.0.1 / ::1 of this process; "public" names come from a fake
// resolver, so nothing leaves the machine.
const local = { allowPrivateNetworks: true };

describe('safeFetch', () => {
  const servers: LocalServer[] = [];
  async function serve(...args: Parameters<typeof startLocalServer>): Promise<LocalServer> {
    const server = await startLocalServer(...args);
    servers.push(server);
    return server;
  }
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  describe('against local servers (private networks allowed)', () => {
    it('sends method, headers and body with a Content-Length, and returns status, headers and body', async () => {
      const server = await serve((request, response) => {
        const parts: Buffer[] = [];
        request.on('data', (part: Buffer) => parts.push(part));
        request.on('end', () => {
          response.writeHead(200, { 'content-type': 'application/json', 'x-seen': request.method });
          response.end(
            JSON.stringify({
              body: Buffer.concat(parts).toString(),
              length: request.headers['content-length'],
              chunked: request.headers['transfer-encoding'] ?? null,
              signature: request.headers['x-signature'],
            }),
          );
        });
      });

      const response = await safeFetch(`${server.origin}/hook?x=1`, {
        ...local,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': 'sha256=ab' },
        body: '{"event":"webhook.test"}',
        maxResponseBytes: 1024,
      });

      expect(response.status).toBe(200);
      expect(response.truncated).toBe(false);
      expect(response.headers['x-seen']).toBe('POST');
      expect(JSON.parse(response.body.toString())).toEqual({
        body: '{"event":"webhook.test"}',
        length: '24',
        chunked: null,
        signature: 'sha256=ab',
      });
      expect(response.durationMs).toBeGreaterThanOrEqual(0);
      expect(server.requests[0].url).toBe('/hook?x=1');
    });

    it('returns a 204 with an empty body', async () => {
      const server = await serve((_request, response) => response.writeHead(204).end());
      const response = await safeFetch(server.origin, { ...local, method: 'POST', body: '{}' });
      expect(response).toMatchObject({ status: 204, truncated: false });
      expect(response.body.length).toBe(0);
    });

    it('returns a 301 as is and does not follow it', async () => {
      const server = await serve((request, response) => {
        if (request.url === '/moved') response.writeHead(301, { location: '/elsewhere' }).end('moved');
        else response.writeHead(200).end('followed');
      });
      const response = await safeFetch(`${server.origin}/moved`, { ...local, method: 'POST', body: '{}' });
      expect(response.status).toBe(301);
      expect(response.headers.location).toBe('/elsewhere');
      expect(response.body.toString()).toBe('moved');
      expect(server.requests.map((request) => request.url)).toEqual(['/moved']);
    });

    it('returns a 500 with its body (a status is an answer, not an error)', async () => {
      const server = await serve((_request, response) => response.writeHead(500).end('boom'));
      const response = await safeFetch(server.origin, local);
      expect(response.status).toBe(500);
      expect(response.body.toString()).toBe('boom');
    });

    it('keeps a body of exactly maxResponseBytes whole', async () => {
      const server = await serve((_request, response) => response.end('x'.repeat(1024)));
      const response = await safeFetch(server.origin, { ...local, maxResponseBytes: 1024 });
      expect(response.body.length).toBe(1024);
      expect(response.truncated).toBe(false);
    });

    it('fails with EgressTimeoutError soon after the deadline when the server never answers', async () => {
      const server = await serve(() => {
        /* hangs: never answers */
      });
      const started = Date.now();
      const failure = safeFetch(server.origin, { ...local, timeoutMs: 150 });
      await expect(failure).rejects.toBeInstanceOf(EgressTimeoutError);
      await expect(failure).rejects.toMatchObject({ code: 'timeout', message: 'timed out after 150 ms' });
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('counts the body against the same deadline (a trickling server cannot outlast it)', async () => {
      const server = await serve((_request, response) => {
        response.writeHead(200, { 'content-length': '1000' });
        const timer = setInterval(() => response.write('x'), 20);
        response.on('close', () => clearInterval(timer));
      });
      const started = Date.now();
      await expect(safeFetch(server.origin, { ...local, timeoutMs: 200 })).rejects.toBeInstanceOf(
        EgressTimeoutError,
      );
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('fails with EgressConnectionError when the connection is reset mid-response', async () => {
      const server = await serve((_request, response) => {
        response.writeHead(200, { 'content-length': '1000' });
        response.write('partial');
        setTimeout(() => response.socket?.resetAndDestroy(), 20);
      });
      const failure = safeFetch(server.origin, local);
      await expect(failure).rejects.toBeInstanceOf(EgressConnectionError);
      await expect(failure).rejects.toMatchObject({
        code: 'connection_failed',
        message: `connection to 127.0.0.1:${server.port} closed mid-response`,
      });
    });

    it('fails with EgressConnectionError when the server hangs up before answering', async () => {
      const server = await serve((request) => request.socket.destroy());
      await expect(safeFetch(server.origin, local)).rejects.toMatchObject({
        code: 'connection_failed',
        message: `connection to 127.0.0.1:${server.port} closed before a response`,
      });
    });

    it('fails with EgressConnectionError when nothing listens', async () => {
      const port = await unusedPort();
      const failure = safeFetch(`http://127.0.0.1:${port}/`, local);
      await expect(failure).rejects.toBeInstanceOf(EgressConnectionError);
      await expect(failure).rejects.toMatchObject({ message: `connection refused by 127.0.0.1:${port}` });
    });

    it('fails with EgressConnectionError when the name does not resolve', async () => {
      const failure = safeFetch('http://nowhere.invalid/', {
        ...local,
        resolver: fakeResolver(dnsNotFound('nowhere.invalid')),
      });
      await expect(failure).rejects.toBeInstanceOf(EgressConnectionError);
      await expect(failure).rejects.toMatchObject({ message: 'could not resolve nowhere.invalid' });
    });

    it('fails with EgressConnectionError on a response that is not HTTP', async () => {
      const sockets: Socket[] = [];
      const garbage = createServer((socket) => {
        sockets.push(socket);
        socket.end('SSH-2.0-OpenSSH\r\n\r\n');
      });
      await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
      const { port } = garbage.address() as AddressInfo;
      try {
        await expect(
          safeFetch(`http://127.0.0.1:${port}/`, { ...local, timeoutMs: 1000 }),
        ).rejects.toMatchObject({
          code: 'connection_failed',
          message: `invalid HTTP response from 127.0.0.1:${port}`,
        });
      } finally {
        // This server never reads, so it would not notice the client leaving; close() waits for it.
        sockets.forEach((socket) => socket.destroy());
        await new Promise<void>((resolve) => garbage.close(() => resolve()));
      }
    });

    it('speaks HTTPS through the guarded lookup and checks the certificate', async () => {
      let connections = 0;
      const server = createHttpsServer({ key: selfSignedKey, cert: selfSignedCert }, (_request, response) =>
        response.end('should not be reached'),
      );
      server.on('secureConnection', () => (connections += 1));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      try {
        const resolver = fakeResolver(['127.0.0.1']);
        const failure = safeFetch(`https://hooks.test:${port}/`, { ...local, resolver, timeoutMs: 2000 });
        await expect(failure).rejects.toBeInstanceOf(EgressConnectionError);
        await expect(failure).rejects.toMatchObject({
          message: `TLS with hooks.test:${port} failed (DEPTH_ZERO_SELF_SIGNED_CERT)`,
        });
        expect(resolver.calls).toEqual(['hooks.test']);
        expect(connections).toBe(0);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('connects to what the guarded lookup resolved a name to', async () => {
      const server = await serve((_request, response) => response.end('via name'));
      const resolver = fakeResolver(['127.0.0.1']);
      const response = await safeFetch(`http://hooks.test:${server.port}/`, { ...local, resolver });
      expect(response.body.toString()).toBe('via name');
      expect(resolver.calls).toEqual(['hooks.test']);
      expect(server.requests[0].headers.host).toBe(`hooks.test:${server.port}`);
    });

    it('reaches an IPv6 loopback server', async () => {
      const server = await serve((_request, response) => response.end('six'), '::1').catch(() => null);
      if (server === null) return; // no IPv6 on this machine: nothing to prove here
      expect((await safeFetch(server.origin, local)).body.toString()).toBe('six');
    });

    it('stops reading a streamed 50 MB body at maxResponseBytes and closes the socket', async () => {
      const total = 50 * 1024 * 1024;
      let written = 0;
      let serverSawClose!: () => void;
      const closed = new Promise<void>((resolve) => (serverSawClose = resolve));
      const server = await serve((_request, response) => {
        const chunk = Buffer.alloc(64 * 1024, 'a');
        response.writeHead(200, { 'content-length': String(total) });
        response.on('close', serverSawClose);
        // Honour backpressure, so the server only ever writes what the client actually reads.
        const pump = (): void => {
          while (written < total && !response.destroyed) {
            written += chunk.length;
            if (!response.write(chunk)) {
              response.once('drain', pump);
              return;
            }
          }
          response.end();
        };
        pump();
      });

      global.gc?.();
      const before = process.memoryUsage();
      const response = await safeFetch(server.origin, { ...local, maxResponseBytes: 1024 });
      const after = process.memoryUsage();

      expect(response.status).toBe(200);
      expect(response.truncated).toBe(true);
      expect(response.body.length).toBe(1024);
      expect(response.body.toString()).toBe('a'.repeat(1024));
      await closed; // the server saw its socket closed by us
      await sleep(50);
      expect(written).toBeLessThan(total / 4); // reading stopped: most of the 50 MB was never sent
      expect(after.rss - before.rss).toBeLessThan(32 * 1024 * 1024);
      expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(16 * 1024 * 1024);
    }, 10_000);
  });

  describe('with private networks refused', () => {
    it('refuses at connect time a name that resolves to loopback, without a policy check first', async () => {
      const server = await serve((_request, response) => response.end('should not be reached'));
      const resolver = fakeResolver(['127.0.0.1']);
      const failure = safeFetch(`http://hooks.test:${server.port}/`, {
        allowPrivateNetworks: false,
        resolver,
      });
      await expect(failure).rejects.toBeInstanceOf(BlockedAddressError);
      await expect(failure).rejects.toMatchObject({
        message: 'blocked: hooks.test resolves to 127.0.0.1, a loopback address',
      });
      expect(resolver.calls).toEqual(['hooks.test']);
      expect(server.connections).toBe(0);
    });

    it('catches DNS rebinding: the policy check saw a public address, the connection would hit loopback', async () => {
      const server = await serve((_request, response) => response.end('should not be reached'));
      const resolver = fakeResolver(['93.184.216.34'], ['127.0.0.1']);
      const url = `http://rebind.test:${server.port}/hook`;

      expect((await new UrlPolicy({ allowPrivateNetworks: false, resolver }).check(url)).ok).toBe(true);
      await expect(
        safeFetch(url, { allowPrivateNetworks: false, resolver, method: 'POST', body: '{}' }),
      ).rejects.toBeInstanceOf(BlockedAddressError);
      expect(resolver.calls).toEqual(['rebind.test', 'rebind.test']);
      expect(server.connections).toBe(0);
    });

    it.each([
      ['127.0.0.1', (port: number) => `http://127.0.0.1:${port}/`],
      ['2130706433', (port: number) => `http://2130706433:${port}/`],
      ['0x7f.1', (port: number) => `http://0x7f.1:${port}/`],
      ['[::ffff:127.0.0.1]', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
    ])('refuses the IP literal %s (Node skips lookup for literals)', async (_form, urlFor) => {
      const server = await serve((_request, response) => response.end('should not be reached'));
      const failure = safeFetch(urlFor(server.port), { allowPrivateNetworks: false });
      await expect(failure).rejects.toBeInstanceOf(BlockedAddressError);
      await expect(failure).rejects.toMatchObject({ kind: 'loopback' });
      expect(server.connections).toBe(0);
    });

    it('guards HTTPS connections the same way', async () => {
      const resolver = fakeResolver(['10.1.2.3']);
      await expect(
        safeFetch('https://hooks.test/', { allowPrivateNetworks: false, resolver }),
      ).rejects.toMatchObject({ code: 'blocked_address', address: '10.1.2.3', kind: 'private' });
    });

    it('refuses private networks by default', async () => {
      const server = await serve((_request, response) => response.end('should not be reached'));
      await expect(safeFetch(server.origin)).rejects.toBeInstanceOf(BlockedAddressError);
      expect(server.connections).toBe(0);
    });
  });

  it.each([
    ['ftp://127.0.0.1/', 'url must use http or https, not ftp'],
    ['http://user:pass@127.0.0.1/', 'url must not contain a username or password'],
    ['nonsense', 'url must be an absolute http or https URL'],
  ])('refuses the unusable URL %s before any I/O', async (url, message) => {
    const failure = safeFetch(url, local);
    await expect(failure).rejects.toBeInstanceOf(EgressInvalidUrlError);
    await expect(failure).rejects.toMatchObject({ code: 'invalid_url', message });
  });
});
