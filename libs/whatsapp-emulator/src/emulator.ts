import type { BinaryNode } from '@whiskeysockets/baileys';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { NoiseServerSession } from './noise-server';

/** One client connected to the emulator, past or during the noise handshake. */
export class EmulatedConnection extends EventEmitter {
  readonly noise = new NoiseServerSession();

  constructor(private readonly socket: WebSocket) {
    super();
  }

  /** Sends one binary node over the noise transport. */
  send(node: BinaryNode): void {
    this.socket.send(this.noise.encodeNode(node));
  }

  close(): void {
    this.socket.close();
  }

  /** Drops the connection without a closing handshake (a network failure). */
  drop(): void {
    this.socket.terminate();
  }

  async receive(data: Uint8Array): Promise<void> {
    const wasEstablished = this.noise.established;
    const { reply, nodes } = await this.noise.receive(data);
    for (const bytes of reply) this.socket.send(bytes);
    if (!wasEstablished && this.noise.established) this.emit('established', this.noise.clientPayload);
    for (const node of nodes) this.emit('node', node);
  }
}

/**
 * A WhatsApp Web server, at the protocol level, for tests: the real Baileys connects to it over
 * WebSocket (once its process trusts the emulator's root, see trust-preload.ts).
 */
export class WhatsAppEmulator extends EventEmitter {
  private server: WebSocketServer | null = null;
  readonly connections = new Set<EmulatedConnection>();

  async start(port = 0): Promise<string> {
    const server = new WebSocketServer({ host: '127.0.0.1', port, path: '/ws/chat' });
    this.server = server;
    await new Promise<void>((resolve) => server.once('listening', resolve));
    server.on('connection', (socket: WebSocket) => {
      const connection = new EmulatedConnection(socket);
      this.connections.add(connection);
      socket.on('message', (data: Buffer) => {
        connection.receive(data).catch((error: unknown) => {
          connection.emit('failure', error);
          socket.terminate();
        });
      });
      socket.on('close', () => {
        this.connections.delete(connection);
        connection.emit('closed');
      });
      this.emit('connection', connection);
    });
    return this.url;
  }

  get url(): string {
    if (!this.server) throw new Error('emulator not started');
    const { port } = this.server.address() as AddressInfo;
    return `ws://127.0.0.1:${port}/ws/chat`;
  }

  async stop(): Promise<void> {
    for (const connection of this.connections) connection.drop();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
