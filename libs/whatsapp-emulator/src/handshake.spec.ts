import { WhatsAppNetworkDriver, type LinkEvent, type NetworkSession } from '@jumbe/network';
import { proto, WA_CERT_DETAILS } from '@whiskeysockets/baileys';
import pino from 'pino';
import { EmulatedConnection, WhatsAppEmulator } from './emulator';
import { MemoryCredentials } from './memory-credentials';
import { EMULATOR_ROOT } from './root-key';

async function until<T>(probe: () => T | undefined, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the product's WhatsApp driver against the emulator's noise handshake", () => {
  const emulator = new WhatsAppEmulator();
  const connections: EmulatedConnection[] = [];
  const sessions: NetworkSession[] = [];
  let driver: WhatsAppNetworkDriver;

  beforeAll(async () => {
    const url = await emulator.start();
    emulator.on('connection', (connection: EmulatedConnection) => connections.push(connection));
    driver = new WhatsAppNetworkDriver({
      credentials: new MemoryCredentials(),
      secretKey: 'test-secret-key-with-enough-characters',
      logger: pino({ level: 'silent' }),
      baileysLogLevel: 'silent',
      fetchVersion: async () => null,
      webSocketUrl: url,
      reconnectBaseMs: 50,
      reconnectMaxMs: 100,
      connectSpacingMs: 0,
    });
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((session) => session.close()));
  });
  afterAll(() => emulator.stop());

  async function open(sessionId: string): Promise<LinkEvent[]> {
    const links: LinkEvent[] = [];
    const ref = { accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId };
    sessions.push(
      await driver.open(
        ref,
        {
          onLink: (e) => links.push(e),
          onInbound: () => Promise.resolve(),
          onMessageStatus: () => undefined,
        },
        { linked: false, token: 1 },
      ),
    );
    return links;
  }

  it("refuses the emulator while the process trusts only WhatsApp's root (no preload)", async () => {
    await open('untrusted');
    await until(() => (connections.length >= 2 ? true : undefined));
    expect(connections.some((connection) => connection.noise.established)).toBe(false);
  }, 15_000);

  it('completes the handshake and sends its registration once the preload swapped the root', async () => {
    await import('./trust-preload');
    expect(Buffer.from(WA_CERT_DETAILS.PUBLIC_KEY).equals(EMULATOR_ROOT.public)).toBe(true);
    connections.length = 0;
    await open('trusted');
    const connection = await until(() => connections.find((c) => c.noise.established));
    const payload = connection.noise.clientPayload as proto.ClientPayload;
    expect(payload.devicePairingData?.eRegid?.length).toBe(4);
    expect(payload.passive).toBe(false);
    expect(connection.noise.clientStatic?.length).toBe(32);
  }, 15_000);
});
