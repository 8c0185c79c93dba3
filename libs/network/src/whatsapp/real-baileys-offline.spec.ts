import { makeWASocket } from '@whiskeysockets/baileys';
import { createServer } from 'node:net';
import pino from 'pino';
import { EventRecorder } from './test-support/event-recorder';
import { MemoryCredentialStore } from './test-support/memory-credential-store';
import { WhatsAppNetworkDriver } from './whatsapp-network-driver';
import type { WhatsAppSocketFactory } from './whatsapp-socket';

/** A loopback port nothing listens on: the real socket fails like a machine without internet. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the real Baileys socket without a network (loopback only)', () => {
  let factory: WhatsAppSocketFactory;
  let created = 0;

  beforeAll(async () => {
    const port = await deadPort();
    // Baileys' own makeWASocket, pointed at a dead loopback address instead of WhatsApp.
    factory = (config) => {
      created += 1;
      return makeWASocket({ ...config, waWebSocketUrl: `ws://127.0.0.1:${port}/ws/chat` });
    };
  });

  it('a start stays starting while it retries, then ends with network_error, without crashing', async () => {
    const driver = new WhatsAppNetworkDriver({
      credentials: new MemoryCredentialStore(),
      secretKey: 'test-secret-key-with-enough-characters',
      logger: pino({ level: 'silent' }),
      socketFactory: factory,
      fetchVersion: async () => null,
      loginTimeoutMs: 1_500,
      reconnectBaseMs: 100,
      reconnectMaxMs: 200,
      connectSpacingMs: 0,
    });
    const events = new EventRecorder();
    const before = created;
    await driver.open({ accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId: 'offline' }, events, {
      linked: false,
      token: 1,
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(events.links).toEqual([]);
    expect(created - before).toBeGreaterThanOrEqual(2);
    await events.untilEvent('disconnected:network_error', 3_000);
    expect(events.types()).toEqual(['disconnected:network_error']);
    expect(driver.openSessions).toBe(0);
  }, 10_000);
});

describe('bounding Baileys’ own caches', () => {
  it('gives the real socket’s LID mapping store a size limit', async () => {
    const { baileysSocketFactory, LID_MAPPING_CACHE_ENTRIES } = await import('./whatsapp-runtime');
    const port = await deadPort();
    const { initAuthCreds, makeCacheableSignalKeyStore } = await import('@whiskeysockets/baileys');
    const logger = pino({ level: 'silent' });
    const socket = baileysSocketFactory({
      auth: {
        creds: initAuthCreds(),
        keys: makeCacheableSignalKeyStore({ get: async () => ({}), set: async () => undefined }, logger),
      },
      logger,
      waWebSocketUrl: `ws://127.0.0.1:${port}/ws/chat`,
    });
    const cache = (socket.signalRepository.lidMapping as unknown as { mappingCache: { max: number } })
      .mappingCache;
    expect(cache.max).toBe(LID_MAPPING_CACHE_ENTRIES);
    await socket.end(undefined);
  });
});
