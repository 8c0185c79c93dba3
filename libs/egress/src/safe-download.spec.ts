import { BlockedAddressError } from './blocked-address-error';
import { EgressStatusError } from './egress-status-error';
import { EgressTimeoutError } from './egress-timeout-error';
import { EgressTooLargeError } from './egress-too-large-error';
import { safeDownload } from './safe-download';
import { fakeResolver } from './test-support/fake-resolver';
import { startLocalServer, type LocalServer } from './test-support/local-server';

const local = { allowPrivateNetworks: true, timeoutMs: 2000 };

describe('safeDownload', () => {
  const servers: LocalServer[] = [];
  async function serve(handler: Parameters<typeof startLocalServer>[0]): Promise<LocalServer> {
    const server = await startLocalServer(handler);
    servers.push(server);
    return server;
  }
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('GETs the whole file with its content type', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(png);
    });
    const file = await safeDownload(`${server.origin}/cat.png`, { ...local, maxBytes: 1024 });
    expect(file.status).toBe(200);
    expect(file.contentType).toBe('image/png');
    expect(file.body.equals(png)).toBe(true);
    expect(server.requests[0].method).toBe('GET');
  });

  it('refuses a Content-Length over the limit without reading the body', async () => {
    let bodyWritten = false;
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      response.flushHeaders();
      setTimeout(() => {
        bodyWritten = !response.destroyed;
        if (bodyWritten) response.end(Buffer.alloc(10 * 1024 * 1024));
      }, 100);
    });
    const failure = safeDownload(server.origin, { ...local, maxBytes: 1024 });
    await expect(failure).rejects.toBeInstanceOf(EgressTooLargeError);
    await expect(failure).rejects.toMatchObject({
      code: 'too_large',
      message: 'response is larger than the limit of 1024 bytes',
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(bodyWritten).toBe(false);
  });

  it('fails when a body without Content-Length streams past the limit', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'video/mp4' }); // chunked, size unknown up front
      response.write(Buffer.alloc(800));
      setTimeout(() => response.end(Buffer.alloc(800)), 20);
    });
    await expect(safeDownload(server.origin, { ...local, maxBytes: 1024 })).rejects.toBeInstanceOf(
      EgressTooLargeError,
    );
  });

  it('accepts a body of exactly maxBytes', async () => {
    const server = await serve((_request, response) => response.end(Buffer.alloc(1024)));
    expect((await safeDownload(server.origin, { ...local, maxBytes: 1024 })).body.length).toBe(1024);
  });

  it.each([
    [302, 'answered HTTP 302 (redirects are not followed)'],
    [404, 'answered HTTP 404'],
    [500, 'answered HTTP 500'],
  ])('fails with EgressStatusError on %i', async (status, message) => {
    const server = await serve((_request, response) => response.writeHead(status, { location: '/x' }).end());
    const failure = safeDownload(server.origin, { ...local, maxBytes: 1024 });
    await expect(failure).rejects.toBeInstanceOf(EgressStatusError);
    await expect(failure).rejects.toMatchObject({ status, message });
    expect(server.requests).toHaveLength(1);
  });

  it('times out on a server that never answers', async () => {
    const server = await serve(() => undefined);
    await expect(
      safeDownload(server.origin, { ...local, timeoutMs: 100, maxBytes: 1024 }),
    ).rejects.toBeInstanceOf(EgressTimeoutError);
  });

  it('refuses at connect time a name that resolves to a private address', async () => {
    const server = await serve((_request, response) => response.end('secret'));
    const failure = safeDownload(`http://media.test:${server.port}/a.jpg`, {
      allowPrivateNetworks: false,
      timeoutMs: 2000,
      maxBytes: 1024,
      resolver: fakeResolver(['127.0.0.1']),
    });
    await expect(failure).rejects.toBeInstanceOf(BlockedAddressError);
    expect(server.connections).toBe(0);
  });
});
