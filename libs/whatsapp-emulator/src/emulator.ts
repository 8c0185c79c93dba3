import { binaryNodeToString, type BinaryNode } from '@whiskeysockets/baileys';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { certificateChain, NoiseServerSession } from './noise-server';
import { newKeyPair, type CurveKeyPair } from './root-key';

/** EMULATOR_TRACE=1 prints every node the emulator sends and receives (for writing scenarios). */
function trace(direction: string, node: BinaryNode): void {
  if (process.env['EMULATOR_TRACE']) process.stderr.write(`${direction} ${binaryNodeToString(node)}\n`);
}

/** One client connected to the emulator, past or during the noise handshake. */
export class EmulatedConnection extends EventEmitter {
  readonly noise: NoiseServerSession;
  /** Server-initiated IQs waiting for the client's answer, by id. */
  private readonly pending = new Map<string, (answer: BinaryNode) => void>();
  private nextId = 1;
  /** The server went quiet on this connection (see silence). */
  private silenced = false;

  constructor(
    private readonly socket: WebSocket,
    identity: ServerIdentity,
  ) {
    super();
    this.noise = new NoiseServerSession(identity.staticKey, identity.chain);
  }

  /** Sends one binary node over the noise transport. */
  send(node: BinaryNode): void {
    if (this.silenced) return;
    trace('server →', node);
    this.socket.send(this.noise.encodeNode(node));
  }

  /** Sends a server-initiated IQ and resolves with the client's `result` or `error` answer. */
  request(iq: BinaryNode, timeoutMs = 10_000): Promise<BinaryNode> {
    const id = iq.attrs.id ?? `emu-${this.nextId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to server IQ ${id}`));
      }, timeoutMs);
      this.pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.send({ ...iq, attrs: { ...iq.attrs, id } });
    });
  }

  close(): void {
    this.socket.close();
  }

  /**
   * The server stops sending anything on this connection, pings' answers included, and keeps the
   * TCP connection open (a server or path gone quiet): the client finds out by its keep-alive.
   * What the client sends meanwhile is lost on the way too (a dead path carries nothing either way).
   */
  silence(): void {
    this.silenced = true;
  }

  /** Drops the connection without a closing handshake (a network failure). */
  drop(): void {
    this.socket.terminate();
  }

  async receive(data: Uint8Array): Promise<void> {
    const wasEstablished = this.noise.established;
    if (this.silenced) return;
    const { reply, nodes } = await this.noise.receive(data);
    for (const bytes of reply) this.socket.send(bytes);
    if (!wasEstablished && this.noise.established) this.emit('established', this.noise.clientPayload);
    for (const node of nodes) {
      trace('client →', node);
      const answered = node.tag === 'iq' ? this.pending.get(node.attrs.id ?? '') : undefined;
      if (answered && (node.attrs.type === 'result' || node.attrs.type === 'error')) {
        this.pending.delete(node.attrs.id ?? '');
        answered(node);
      } else this.emit('node', node);
    }
  }
}

/** The server's noise static key and its certificate chain, made once per emulator. */
interface ServerIdentity {
  readonly staticKey: CurveKeyPair;
  readonly chain: Uint8Array;
}

function newServerIdentity(): ServerIdentity {
  const staticKey = newKeyPair();
  return { staticKey, chain: certificateChain(staticKey.public) };
}

/**
 * A WhatsApp Web server, at the protocol level, for tests: the real Baileys connects to it over
 * WebSocket (once its process trusts the emulator's root, see trust-preload.ts).
 */
export class WhatsAppEmulator extends EventEmitter {
  private server: WebSocketServer | null = null;
  readonly connections = new Set<EmulatedConnection>();
  private identity: ServerIdentity | null = null;

  async start(port = 0): Promise<string> {
    const identity = (this.identity ??= newServerIdentity());
    const server = new WebSocketServer({ host: '127.0.0.1', port, path: '/ws/chat' });
    this.server = server;
    await new Promise<void>((resolve) => server.once('listening', resolve));
    server.on('connection', (socket: WebSocket) => {
      const connection = new EmulatedConnection(socket, identity);
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
    this.emit('stopped');
  }
}
