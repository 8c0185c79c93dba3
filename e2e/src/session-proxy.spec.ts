import { createAccount } from './support/operator';
import { linkSession } from './support/sandbox-helpers';
import { startAllInOne } from './support/topology';

type AllInOne = Awaited<ReturnType<typeof startAllInOne>>;

const PASSWORD = 's3cr3t-pw';
/** A public address literal: the save-time check needs no DNS, and the sandbox never dials it. */
const PROXY = `socks5://shop-7:${PASSWORD}@93.184.216.34:1080`;
const MASKED = 'socks5://shop-7:****@93.184.216.34:1080';

/**
 * A session's own proxy through the API (issue 31 item 5, CONTRACT §11): set, read back masked,
 * cleared; refused when it is not a proxy URL or sits on a private network (the default policy);
 * the password never in an answer or a log line. The sandbox keeps and shows it, and never dials.
 */
describe('per-session proxy: PUT/GET/DELETE /api/v1/session/proxy', () => {
  let running: AllInOne | undefined;

  beforeAll(async () => {
    running = await startAllInOne();
  });
  afterAll(() => running?.stop());

  const gateway = () => {
    const api = running?.gateways[0];
    if (!api) throw new Error('the all-in-one has no gateway');
    return api;
  };

  it('sets, shows masked, keeps a masked resubmission, and clears a session proxy', async () => {
    const api = gateway();
    const { key } = await createAccount(api, running?.adminToken ?? '');

    const none = await api.get('/api/v1/session/proxy?sessionId=shop', { key });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ data: { sessionId: 'shop', proxy: null, updatedAt: null } });

    const saved = await api.put('/api/v1/session/proxy', { key, body: { sessionId: 'shop', url: PROXY } });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      message: expect.stringContaining('Proxy saved'),
      data: { sessionId: 'shop', proxy: MASKED, updatedAt: expect.any(String) },
    });
    expect(saved.text).not.toContain(PASSWORD);

    const read = await api.get('/api/v1/session/proxy?sessionId=shop', { key });
    expect(read.body.data).toEqual(saved.body.data);
    expect(read.text).not.toContain(PASSWORD);
    // Another session of the account has none.
    expect((await api.get('/api/v1/session/proxy', { key })).body.data).toEqual({
      sessionId: 'default',
      proxy: null,
      updatedAt: null,
    });

    // A form filled from GET sends the masked form back: the stored password stays.
    const resent = await api.put('/api/v1/session/proxy', { key, body: { sessionId: 'shop', url: MASKED } });
    expect(resent.status).toBe(200);
    expect(resent.body.data).toEqual(saved.body.data);

    // The sandbox keeps the proxy and links the session as always: it never dials anything.
    await linkSession(api, key, 'shop');
    const status = await api.get('/api/v1/session/status?sessionId=shop', { key });
    expect(status.body.data.state).toBe('connected');

    const cleared = await api.delete('/api/v1/session/proxy?sessionId=shop', { key });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toEqual({ sessionId: 'shop', proxy: null, updatedAt: null });
    expect((await api.get('/api/v1/session/proxy?sessionId=shop', { key })).body.data.proxy).toBeNull();
    expect(running?.processes.map((process) => process.logs()).join('\n')).not.toContain(PASSWORD);
  }, 60_000);

  it('refuses a proxy on a private network, or a value that is no proxy URL, with 400 naming /url', async () => {
    const api = gateway();
    const { key } = await createAccount(api, running?.adminToken ?? '');
    const refusals: [url: unknown, code: string, problem: RegExp][] = [
      [
        'http://10.0.0.5:3128',
        'invalid_proxy_url',
        /10\.0\.0\.5, a private address; proxy must be on a public address/,
      ],
      ['socks5://u:p@127.0.0.1:1080', 'invalid_proxy_url', /127\.0\.0\.1, a loopback address/],
      ['ftp://93.184.216.34', 'invalid_proxy_url', /must use http, https, socks5, socks5h, not ftp/],
      ['http://93.184.216.34:3128/path', 'invalid_proxy_url', /no path, query or fragment/],
      ['93.184.216.34:1080', 'invalid_proxy_url', /absolute proxy URL/],
      [7, 'validation_error', /string/],
    ];
    for (const [url, code, problem] of refusals) {
      const response = await api.put('/api/v1/session/proxy', { key, body: { sessionId: 'shop', url } });
      expect([response.status, response.body.error.code]).toEqual([400, code]);
      expect(response.body.error.details).toEqual([
        { path: '/url', problem: expect.stringMatching(problem) },
      ]);
    }
    const badSession = await api.put('/api/v1/session/proxy', {
      key,
      body: { sessionId: 'no spaces', url: PROXY },
    });
    expect([badSession.status, badSession.body.error.code]).toEqual([400, 'invalid_session_id']);
    const unknownField = await api.put('/api/v1/session/proxy', {
      key,
      body: { sessionId: 'shop', url: PROXY, password: 'x' },
    });
    expect([unknownField.status, unknownField.body.error.code]).toEqual([400, 'validation_error']);
    // Nothing was stored by any refusal.
    expect((await api.get('/api/v1/session/proxy?sessionId=shop', { key })).body.data.proxy).toBeNull();
    // Another account never sees this account's proxy.
    await api.put('/api/v1/session/proxy', { key, body: { sessionId: 'shop', url: PROXY } });
    const other = await createAccount(api, running?.adminToken ?? '');
    expect(
      (await api.get('/api/v1/session/proxy?sessionId=shop', { key: other.key })).body.data.proxy,
    ).toBeNull();
  }, 60_000);
});
