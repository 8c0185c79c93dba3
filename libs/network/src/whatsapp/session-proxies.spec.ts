import { SessionProxyVault } from '@jumbe/domain';
import { sessionProxyAgents } from './proxy-agents';
import { SessionProxies } from './session-proxies';
import { SessionProxyError } from './session-proxy-error';

const SECRET = 'test-secret-key-with-enough-characters';
const REF = { accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId: 'shop' };

/** What a session's stored proxy becomes in the worker, before anything is dialled. */
describe("a session's proxy as the worker opens it", () => {
  const proxiesWith = (sealed: string | null, secretKey = SECRET) =>
    new SessionProxies({
      store: { sealedProxyOf: async () => sealed },
      secretKey,
      policy: { allowPrivateNetworks: false },
      webSocketUrl: 'wss://web.whatsapp.com/ws/chat',
      probeTimeoutMs: 1_000,
    });

  it('is none for a session without one (or a driver without a store)', async () => {
    expect(await proxiesWith(null).forConnection(REF)).toBeNull();
    const storeless = new SessionProxies({
      store: undefined,
      secretKey: SECRET,
      policy: { allowPrivateNetworks: false },
      webSocketUrl: 'wss://web.whatsapp.com/ws/chat',
      probeTimeoutMs: 1_000,
    });
    expect(await storeless.agentsOf(REF)).toBeNull();
  });

  it('opens the sealed URL into agents that show it masked', async () => {
    const sealed = new SessionProxyVault(SECRET).seal(REF, 'socks5://shop-7:s3cr3t@93.184.216.34:1080');
    const agents = await proxiesWith(sealed).agentsOf(REF);
    expect(agents?.masked).toBe('socks5://shop-7:****@93.184.216.34:1080');
    await agents?.close();
  });

  it('refuses a value sealed under another secret key, or for another session, asking to set it again', async () => {
    const otherKey = new SessionProxyVault('another-secret-key-of-enough-length-01').seal(
      REF,
      'http://p.example.com',
    );
    await expect(proxiesWith(otherKey).agentsOf(REF)).rejects.toThrow(
      "could not connect through the session's proxy (sealed): its stored value cannot be opened with this JUMBE_SECRET_KEY; set the proxy again",
    );
    const otherSession = new SessionProxyVault(SECRET).seal(
      { ...REF, sessionId: 'other' },
      'http://p.example.com',
    );
    await expect(proxiesWith(otherSession).agentsOf(REF)).rejects.toBeInstanceOf(SessionProxyError);
  });

  it('refuses a private literal before dialling, and a value that is no proxy URL without showing it', () => {
    expect(() => sessionProxyAgents('http://u:pw@10.0.0.5:3128', { allowPrivateNetworks: false })).toThrow(
      "could not connect through the session's proxy http://u:****@10.0.0.5:3128: the proxy points to 10.0.0.5, a private address",
    );
    expect(() => sessionProxyAgents('pw-pasted-by-mistake', { allowPrivateNetworks: false })).toThrow(
      "could not connect through the session's proxy ****: url must be an absolute proxy URL",
    );
  });
});
