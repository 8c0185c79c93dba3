import { initAuthCreds, makeCacheableSignalKeyStore, makeWASocket } from '@whiskeysockets/baileys';
import pino from 'pino';
import { WebSocketServer } from 'ws';
import { nothingLeft, withSendDeadline } from '../send-deadline';
import { guardFramesByDeadline } from './deadline-guard';
import type { WhatsAppSocket } from './whatsapp-socket';

/**
 * Pins what the deadline guard relies on in Baileys (7.0.0-rc14): its socket's `ws` has an
 * `isOpen` getter, and a frame is refused (`Connection Closed`, nothing written) when it reads
 * false. If an upgrade changes that, this fails and sends could leave after their caller gave up.
 */
describe('the deadline guard on a real Baileys socket (pinned)', () => {
  const logger = pino({ level: 'silent' });
  let server: WebSocketServer;
  let frames = 0;
  let socket: ReturnType<typeof makeWASocket>;

  beforeAll(async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    server.on('connection', (connection) => connection.on('message', () => (frames += 1)));
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    socket = makeWASocket({
      auth: {
        creds: { ...initAuthCreds(), me: { id: '254700000001:1@s.whatsapp.net' } },
        keys: makeCacheableSignalKeyStore({ get: async () => ({}), set: async () => undefined }, logger),
      },
      logger,
      waWebSocketUrl: `ws://127.0.0.1:${port}/ws/chat`,
    });
    const ws = socket.ws as unknown as { isOpen: boolean };
    for (let waited = 0; !ws.isOpen && waited < 5_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
  });
  afterAll(async () => {
    socket.end(undefined);
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses a frame past the deadline, writing nothing, and lets others through', async () => {
    expect(guardFramesByDeadline(socket as unknown as WhatsAppSocket)).toBe(true);
    // The client hello went out when the socket opened.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = frames;

    await expect(
      withSendDeadline(Date.now() - 1, () =>
        socket.sendNode({ tag: 'presence', attrs: { type: 'available' } }),
      ),
    ).rejects.toThrow('Connection Closed');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(frames).toBe(before);

    let left = false;
    await withSendDeadline(Date.now() + 60_000, async () => {
      await socket.sendNode({ tag: 'presence', attrs: { type: 'available' } });
      left = !nothingLeft();
    });
    await socket.sendNode({ tag: 'presence', attrs: { type: 'available' } });
    for (let waited = 0; frames < before + 2 && waited < 5_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    expect(frames).toBe(before + 2);
    expect(left).toBe(true);
  });
});
