import './trust-preload';
import { SessionProxyVault } from '@jumbe/domain';
import type { SessionRef } from '@jumbe/network';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { contactMediaMessage } from './contact-media';
import { DriverHarness, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { deadProxyPort, type LocalProxy, startConnectProxy, startSocks5Proxy } from './local-proxies';
import { EmulatedNetwork } from './network';

const SECRET = 'test-secret-key-with-enough-characters';
const CREDENTIALS = { username: 'shop-7', password: 's3cr3t-pw' };

/**
 * A session's own proxy through the product's real WhatsApp driver and the real Baileys: its
 * WebSocket and its media upload open tunnels through a small HTTP CONNECT or SOCKS5 proxy on
 * 127.0.0.1 (the tests' egress policy allows loopback, as for the emulator itself), and a proxy
 * that is down, refuses the credentials or is not allowed fails the open with its masked name.
 */
describe('a session connecting through its own proxy (emulator, real Baileys)', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const vault = new SessionProxyVault(SECRET);
  const proxies = new Map<string, string>();
  const store = { sealedProxyOf: async (ref: SessionRef) => proxies.get(ref.sessionId) ?? null };
  const setProxy = (sessionId: string, url: string) =>
    proxies.set(sessionId, vault.seal({ accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId }, url));
  let emulatorHost: string;
  let harness: DriverHarness;
  const started: LocalProxy[] = [];
  // The emulated media host's certificate is trusted by the global HTTPS agent only (the preload);
  // a proxy agent makes its own TLS connection, so this process accepts any certificate meanwhile.
  // Node's TLS reads the real process's environment, which Jest hides behind a copy.
  const realEnv = (Buffer.constructor('return process')() as NodeJS.Process).env;
  const previousTlsSetting = realEnv['NODE_TLS_REJECT_UNAUTHORIZED'];

  beforeAll(async () => {
    const url = await emulator.start();
    emulatorHost = new URL(url).host;
    harness = new DriverHarness(url, undefined, {
      sessionProxies: store,
      proxyProbeTimeoutMs: 3_000,
      mediaHost: await network.media.start(),
    });
    realEnv['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
  });
  afterEach(() => harness.closeAll());
  afterAll(async () => {
    if (previousTlsSetting === undefined) delete realEnv['NODE_TLS_REJECT_UNAUTHORIZED'];
    else realEnv['NODE_TLS_REJECT_UNAUTHORIZED'] = previousTlsSetting;
    await Promise.all(started.map((proxy) => proxy.close()));
    await emulator.stop();
  });

  async function proxy(kind: 'http' | 'socks5'): Promise<LocalProxy> {
    const started_ =
      kind === 'http' ? await startConnectProxy(CREDENTIALS) : await startSocks5Proxy(CREDENTIALS);
    started.push(started_);
    return started_;
  }

  it('links by QR and uploads a media file through an HTTP proxy (CONNECT with Basic credentials)', async () => {
    const through = await proxy('http');
    setProxy('via-http', through.url);
    const phone = network.user('254700000021');
    const contact = network.user('254711000021');
    const files = await fileServer(Buffer.from('%PDF-1.4 invoice 42'));
    try {
      const linked = await harness.link(network, phone, 'via-http');
      expect(linked.links.at(-1)).toEqual({ type: 'connected', phoneNumber: '254700000021' });
      // The probe, the QR socket and the socket after the restart (515): all tunnelled.
      expect(through.tunnels.filter((target) => target === emulatorHost).length).toBeGreaterThanOrEqual(3);

      const mediaHost = await network.media.start();
      const sent = await linked.session.send({
        kind: 'media',
        to: '254711000021@s.whatsapp.net',
        type: 'document',
        url: `${files.origin}/invoice.pdf`,
        fileName: 'invoice.pdf',
      });
      const received = await until(
        () => network.receivedBy(contact).find((message) => message.id === sent.id),
        20_000,
      );
      expect((await network.downloadMedia(received)).toString()).toBe('%PDF-1.4 invoice 42');
      // The upload to WhatsApp's media host left through the proxy; the customer's file URL did not.
      expect(through.tunnels).toContain(mediaHost);
      expect(through.tunnels).not.toContain(new URL(files.origin).host);

      // A photo the contact sends is downloaded from the media host through the proxy too.
      const photo = randomBytes(20_000);
      const id = await network.sendMessage(
        contact,
        phone,
        await contactMediaMessage(network.media, { bytes: photo, kind: 'image', mimetype: 'image/jpeg' }),
      );
      await until(() => linked.inbound.some((message) => message.id === id), 20_000);
      const tunnelsBefore = through.tunnels.length;
      const file = await harness.driver.downloadMedia(linked.ref, id, { maxBytes: 1024 * 1024 });
      expect((await bytesOf(file.data)).equals(photo)).toBe(true);
      expect(through.tunnels.slice(tunnelsBefore)).toContain(mediaHost);
    } finally {
      await files.close();
    }
  }, 40_000);

  it('links and downloads a received photo through a SOCKS5 proxy (user/password)', async () => {
    const through = await proxy('socks5');
    setProxy('via-socks', through.url);
    const phone = network.user('254700000022');
    const contact = network.user('254711000022');
    const linked = await harness.link(network, phone, 'via-socks');
    expect(through.tunnels.filter((target) => target === emulatorHost).length).toBeGreaterThanOrEqual(3);

    const photo = randomBytes(20_000);
    const id = await network.sendMessage(
      contact,
      phone,
      await contactMediaMessage(network.media, { bytes: photo, kind: 'image', mimetype: 'image/jpeg' }),
    );
    await until(() => linked.inbound.some((message) => message.id === id), 20_000);
    const file = await harness.driver.downloadMedia(linked.ref, id, { maxBytes: 1024 * 1024 });
    expect((await bytesOf(file.data)).equals(photo)).toBe(true);
    expect(through.tunnels).toContain(await network.media.start());
  }, 40_000);

  it('fails the open with an error naming the masked proxy when the proxy is down', async () => {
    const port = await deadProxyPort();
    for (const scheme of ['http', 'socks5']) {
      setProxy('dead', `${scheme}://shop-7:s3cr3t-pw@127.0.0.1:${port}`);
      const failure = harness.open('dead');
      await expect(failure).rejects.toThrow(
        `could not connect through the session's proxy ${scheme}://shop-7:****@127.0.0.1:${port}: `,
      );
      await expect(failure).rejects.toThrow(/ECONNREFUSED|refused/i);
      await expect(failure).rejects.not.toThrow(/s3cr3t/);
    }
  }, 20_000);

  it('fails the open naming the proxy when the proxy refuses the credentials', async () => {
    const through = await proxy('http');
    setProxy('wrong-password', through.url.replace('s3cr3t-pw', 'wrong'));
    await expect(harness.open('wrong-password')).rejects.toThrow(
      `could not connect through the session's proxy http://shop-7:****@127.0.0.1:${through.port}: the proxy answered 407`,
    );
    expect(through.refused).toBe(1);
  }, 20_000);

  it('refuses a proxy on a private network unless the operator allows private networks, before dialling it', async () => {
    const through = await proxy('socks5');
    const strict = new DriverHarness(emulator.url, undefined, {
      sessionProxies: store,
      allowPrivateNetworks: false,
    });
    setProxy('private', through.url);
    await expect(strict.open('private')).rejects.toThrow(
      `could not connect through the session's proxy socks5://shop-7:****@127.0.0.1:${through.port}: the proxy points to 127.0.0.1, a loopback address`,
    );
    setProxy('private-name', through.url.replace('127.0.0.1', 'localhost'));
    await expect(strict.open('private-name')).rejects.toThrow(
      /blocked: localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
    );
    expect(through.tunnels).toEqual([]);
  }, 20_000);
});

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

async function fileServer(body: Buffer): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length }).end(body),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
