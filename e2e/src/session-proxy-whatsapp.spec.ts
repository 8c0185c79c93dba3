import type { ApiClient, ServiceProcess } from '@jumbe/testing';
import { deadProxyPort, type LocalProxy, startConnectProxy } from '@jumbe/whatsapp-emulator';
import { createAccount, type TestAccount } from './support/operator';
import { eventually } from './support/sandbox-helpers';
import { type EmulatedTopology, startWithEmulator } from './support/whatsapp-emulator-topology';

const CREDENTIALS = { username: 'shop-7', password: 's3cr3t-pw' };

/**
 * Issue 31 item 5 end to end on the real driver: a proxy set through the API is sealed in
 * PostgreSQL, opened by the worker, and the session's WebSocket (unmodified Baileys) reaches the
 * emulator through it; a proxy that is down fails the start with its masked name. The topology
 * allows private networks (JUMBE_ALLOW_PRIVATE_NETWORKS=true), as the emulator runs on 127.0.0.1.
 */
describe('a session proxy through the gateway, the worker and the real Baileys (emulator)', () => {
  let emulated: EmulatedTopology;
  let api: ApiClient;
  let account: TestAccount;
  let worker: ServiceProcess;
  let proxy: LocalProxy;

  beforeAll(async () => {
    emulated = await startWithEmulator();
    const gateway = emulated.topology.gateways[0];
    if (!gateway) throw new Error('no gateway');
    api = gateway;
    account = await createAccount(api, emulated.topology.adminToken);
    worker = await emulated.startWorker('worker-proxy');
    proxy = await startConnectProxy(CREDENTIALS);
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await emulated?.stop();
  });

  it('fails the start with network_error naming the masked proxy when the proxy is down', async () => {
    const port = await deadProxyPort();
    const set = await api.put('/api/v1/session/proxy', {
      key: account.key,
      body: { sessionId: 'down', url: `http://shop-7:s3cr3t-pw@127.0.0.1:${port}` },
    });
    expect(set.status).toBe(200);
    const started = await api.post('/api/v1/session/start', {
      key: account.key,
      body: { sessionId: 'down' },
    });
    expect([started.status, started.body.error?.code]).toEqual([502, 'network_error']);
    expect(started.body.message).toContain(
      `could not connect through the session's proxy http://shop-7:****@127.0.0.1:${port}: `,
    );
    expect(started.text).not.toContain('s3cr3t');
    const status = await api.get('/api/v1/session/status?sessionId=down', { key: account.key });
    expect(status.body.data).toMatchObject({ state: 'disconnected', reason: 'network_error' });
  }, 60_000);

  it("shows the QR over a WebSocket tunnelled through the session's proxy", async () => {
    const set = await api.put('/api/v1/session/proxy', {
      key: account.key,
      body: { sessionId: 'shop', url: proxy.url },
    });
    expect(set.body.data.proxy).toBe(`http://shop-7:****@127.0.0.1:${proxy.port}`);
    const started = await api.post('/api/v1/session/start', {
      key: account.key,
      body: { sessionId: 'shop' },
    });
    expect(started.status).toBe(200);
    const qr = await eventually(
      () => api.get('/api/v1/session/qr?sessionId=shop', { key: account.key }),
      (response) => response.body?.data?.state === 'qr_ready',
    );
    expect(qr.body.data.qr).not.toBe('');
    const emulatorHost = new URL(emulated.emulator.url).host;
    expect(proxy.tunnels.filter((target) => target === emulatorHost).length).toBeGreaterThanOrEqual(2);
    // Neither the worker nor the gateway logged the password.
    expect(worker.logs()).not.toContain('s3cr3t');
    expect(emulated.topology.processes.map((process) => process.logs()).join('\n')).not.toContain('s3cr3t');
  }, 60_000);

  it('reconnects a linked session through a proxy set afterwards, directly once it is removed, and names a dead one', async () => {
    const phone = emulated.network.user('254700000131', 'Duka');
    await api.post('/api/v1/session/start', { key: account.key, body: { sessionId: 'linked' } });
    const qr = await eventually(
      () => api.get('/api/v1/session/qr?sessionId=linked', { key: account.key }),
      (response) => response.body?.data?.state === 'qr_ready',
    );
    await emulated.network.scanQr(phone, qr.body.data.qr);
    const status = () => api.get('/api/v1/session/status?sessionId=linked', { key: account.key });
    await eventually(status, (response) => response.body.data.state === 'connected');
    const emulatorHost = new URL(emulated.emulator.url).host;
    const tunnelsBefore = proxy.tunnels.filter((target) => target === emulatorHost).length;

    const set = await api.put('/api/v1/session/proxy', {
      key: account.key,
      body: { sessionId: 'linked', url: proxy.url },
    });
    expect([set.status, set.body.message]).toEqual([200, 'Proxy saved. The session reconnected through it.']);
    expect(proxy.tunnels.filter((target) => target === emulatorHost).length).toBeGreaterThan(tunnelsBefore);
    expect(
      (await eventually(status, (response) => response.body.data.state === 'connected')).body.data,
    ).toMatchObject({
      state: 'connected',
      phoneNumber: '254700000131',
    });

    const removed = await api.delete('/api/v1/session/proxy?sessionId=linked', { key: account.key });
    expect([removed.status, removed.body.message]).toEqual([
      200,
      'Proxy removed. The session reconnected directly.',
    ]);
    expect(
      (await eventually(status, (response) => response.body.data.state === 'connected')).body.data.state,
    ).toBe('connected');

    const port = await deadProxyPort();
    const dead = await api.put('/api/v1/session/proxy', {
      key: account.key,
      body: { sessionId: 'linked', url: `socks5://shop-7:s3cr3t-pw@127.0.0.1:${port}` },
    });
    expect([dead.status, dead.body.error?.code]).toEqual([502, 'network_error']);
    expect(dead.body.message).toContain(
      `Proxy saved, but session "linked" could not reconnect: Could not reach the messaging network: could not connect through the session's proxy socks5://shop-7:****@127.0.0.1:${port}: `,
    );
    expect((await status()).body.data).toMatchObject({ state: 'disconnected', reason: 'network_error' });
  }, 90_000);
});
