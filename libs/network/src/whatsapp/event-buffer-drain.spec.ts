import {
  initAuthCreds,
  makeCacheableSignalKeyStore,
  makeEventBuffer,
  makeWASocket,
} from '@whiskeysockets/baileys';
import type { BaileysEventMap } from '@whiskeysockets/baileys';
import { createServer, type Socket } from 'node:net';
import pino from 'pino';
import { EventBufferDrain } from './event-buffer-drain';
import type { WhatsAppSocket } from './whatsapp-socket';

/**
 * Pins the Baileys (7.0.0-rc14) internals EventBufferDrain works around: if an upgrade changes
 * one of them, its test fails, and the drain (and the README's reliability notes) must be revisited.
 */
const logger = pino({ level: 'silent' });
const upsert = (id: string): BaileysEventMap['messages.upsert'] => ({
  messages: [{ key: { id, remoteJid: '254711000001@s.whatsapp.net', fromMe: false } }],
  type: 'append',
});

type Buffer = ReturnType<typeof makeEventBuffer>;

/** Leaves `ev` as rc14 does after a buffered function flushed inside itself: a stale flush timer. */
async function withStaleFlushTimer(ev: Buffer): Promise<void> {
  await ev.createBufferedFunction(async () => {
    ev.emit('messages.upsert', upsert('first'));
    ev.flush();
  })();
  await jest.advanceTimersByTimeAsync(200);
}

describe('Baileys’ event buffer (pinned)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('holds messages.upsert while buffering and emits it only on flush', () => {
    const ev = makeEventBuffer(logger);
    const seen: string[] = [];
    ev.on('messages.upsert', ({ messages }) => seen.push(...messages.map((m) => m.key.id ?? '')));
    ev.buffer();
    ev.emit('messages.upsert', upsert('held'));
    expect(seen).toEqual([]);
    expect(ev.isBuffering()).toBe(true);
    ev.flush();
    expect(seen).toEqual(['held']);
  });

  it('rc14 defect: after an in-buffer flush, a later buffered upsert waits for the 30 s auto-flush', async () => {
    const ev = makeEventBuffer(logger);
    const seen: string[] = [];
    ev.on('messages.upsert', ({ messages }) => seen.push(...messages.map((m) => m.key.id ?? '')));
    await withStaleFlushTimer(ev);
    await ev.createBufferedFunction(async () => void ev.emit('messages.upsert', upsert('late')))();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(seen).toEqual(['first']);
    await jest.advanceTimersByTimeAsync(30_000);
    expect(seen).toEqual(['first', 'late']);
  });

  it('the drain releases such an upsert within two of its ticks', async () => {
    const ev = makeEventBuffer(logger);
    const seen: string[] = [];
    ev.on('messages.upsert', ({ messages }) => seen.push(...messages.map((m) => m.key.id ?? '')));
    const drain = EventBufferDrain.attach({ ev } as unknown as WhatsAppSocket, 1_000);
    await withStaleFlushTimer(ev);
    await ev.createBufferedFunction(async () => void ev.emit('messages.upsert', upsert('late')))();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(seen).toEqual(['first', 'late']);
    drain.stop();
  });
});

describe('EventBufferDrain', () => {
  it('emits a messages.upsert Baileys buffers at once, and leaves the rest to its ticks', () => {
    const ev = makeEventBuffer(logger);
    const seen: string[] = [];
    const chats: unknown[] = [];
    ev.on('messages.upsert', ({ messages }) => seen.push(...messages.map((m) => m.key.id ?? '')));
    ev.on('chats.upsert', (upserted) => chats.push(...upserted));
    const drain = EventBufferDrain.attach({ ev } as unknown as WhatsAppSocket, 1_000);
    ev.buffer();
    ev.emit('chats.upsert', [{ id: '254711000001@s.whatsapp.net' }]);
    expect(chats).toEqual([]);
    ev.emit('messages.upsert', upsert('receipted'));
    expect(seen).toEqual(['receipted']);
    expect(ev.isBuffering()).toBe(false);
    drain.stop();
  });
});

describe('a real socket’s end (pinned)', () => {
  it('emits close while its buffer still holds what it buffered, then destroys the buffer', async () => {
    // Accepts the TCP connection and never answers: the socket stays up until ended.
    const accepted: Socket[] = [];
    const server = createServer((connection) => void accepted.push(connection));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const creds = { ...initAuthCreds(), me: { id: '254700000001:1@s.whatsapp.net' } };
    const socket = makeWASocket({
      auth: {
        creds,
        keys: makeCacheableSignalKeyStore({ get: async () => ({}), set: async () => undefined }, logger),
      },
      logger,
      waWebSocketUrl: `ws://127.0.0.1:${port}/ws/chat`,
    });
    const seen: string[] = [];
    socket.ev.on('messages.upsert', ({ messages }) => seen.push(...messages.map((m) => m.key.id ?? '')));
    // A logged-in socket buffers from its first tick (Socket/socket.js).
    await new Promise((resolve) => setImmediate(resolve));
    expect(socket.ev.isBuffering()).toBe(true);
    socket.ev.emit('messages.upsert', upsert('receipted'));
    const atClose = new Promise<{ buffering: boolean; flushed: string[] }>((resolve) => {
      socket.ev.on('connection.update', ({ connection }) => {
        if (connection !== 'close') return;
        const buffering = socket.ev.isBuffering();
        socket.ev.flush();
        resolve({ buffering, flushed: [...seen] });
      });
    });
    await socket.end(undefined);
    for (const connection of accepted) connection.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await atClose).toEqual({ buffering: true, flushed: ['receipted'] });
    // Then ev.destroy(): every listener gone, nothing buffered any more.
    await new Promise((resolve) => setImmediate(resolve));
    socket.ev.emit('messages.upsert', upsert('after'));
    expect(seen).toEqual(['receipted']);
    expect(socket.ev.isBuffering()).toBe(false);
  });
});
