import {
  type AnyMessageContent,
  type BaileysEventMap,
  type BinaryNode,
  type Contact,
  generateWAMessage,
  type GroupMetadata,
  type MiscMessageGenerationOptions,
  proto,
  type UserFacingSocketConfig,
  type WAMessage,
} from '@whiskeysockets/baileys';
import { EventEmitter } from 'node:events';
import type { WhatsAppSocket, WhatsAppSocketFactory } from '../whatsapp-socket';

/** The error Baileys closes a connection with: a Boom carrying the DisconnectReason as statusCode. */
export function boom(statusCode: number | undefined, message: string): Error {
  const error = new Error(message) as Error & { isBoom: boolean; output?: { statusCode: number } };
  error.isBoom = statusCode !== undefined;
  if (statusCode !== undefined) error.output = { statusCode };
  return error;
}

export interface RelayedMessage {
  jid: string;
  message: proto.IMessage;
  options: { messageId?: string; additionalNodes?: BinaryNode[] };
}

export interface SentMessage {
  jid: string;
  content: AnyMessageContent;
  /** What Baileys itself built from `content` (its real generateWAMessage, media encrypted). */
  message: WAMessage;
}

/**
 * A Baileys socket without a network: it emits the library's own event shapes (`connection.update`,
 * `creds.update`, `messages.upsert`) when a test plays the server's or the phone's part, and
 * records what the driver sent. Sends go through Baileys' real message generation, with uploads
 * answered locally, so tests check the very proto Baileys would relay.
 */
export class FakeBaileysSocket implements WhatsAppSocket {
  private readonly emitter = new EventEmitter();
  readonly ev = {
    on: <E extends keyof BaileysEventMap>(event: E, listener: (arg: BaileysEventMap[E]) => void): void => {
      this.emitter.on(event, listener);
    },
  };
  user: Contact | undefined;
  readonly lids = new Map<string, string>();
  readonly signalRepository = {
    lidMapping: { getPNForLID: async (lid: string) => this.lids.get(lid) ?? null },
  };
  readonly sent: SentMessage[] = [];
  readonly relayed: RelayedMessage[] = [];
  readonly pairingRequests: string[] = [];
  readonly uploads: { mediaType: string; bytes: number }[] = [];
  loggedOut = false;
  ended = false;
  /** Set to make the next sends fail as a broken connection would. */
  failSends: Error | null = null;
  private pairingCode = 'K7PQ2XWD';

  constructor(readonly config: UserFacingSocketConfig) {
    // Baileys' own first listener: every creds.update is merged into the auth state's creds.
    this.emitter.on('creds.update', (update: Partial<typeof config.auth.creds>) =>
      Object.assign(config.auth.creds, update),
    );
    // As Baileys does on the next tick of makeWASocket.
    process.nextTick(() =>
      this.emit('connection.update', {
        connection: 'connecting',
        receivedPendingNotifications: false,
        qr: undefined,
      }),
    );
  }

  emit<E extends keyof BaileysEventMap>(event: E, payload: BaileysEventMap[E]): void {
    if (this.ended && event !== 'connection.update') return;
    this.emitter.emit(event, payload);
  }

  // ── The server's and the phone's side ──

  /** The server handed out a pairing ref: Baileys emits it as a QR string. */
  showQr(qr: string): void {
    this.emit('connection.update', { qr });
  }

  /** The phone scanned (or typed the code): Baileys stores the identity, then the server restarts. */
  async linkPhone(phoneNumber: string, device = 7): Promise<void> {
    const me = {
      id: `${phoneNumber}:${device}@s.whatsapp.net`,
      name: '~',
      lid: `8${phoneNumber}:${device}@lid`,
    };
    const account = { details: Buffer.from('details'), accountSignatureKey: Buffer.alloc(32, 1) };
    this.emit('creds.update', { me, account, platform: 'smba' });
    this.emit('connection.update', { isNewLogin: true, qr: undefined });
    await this.end(boom(515, 'Stream Errored (restart required)'));
  }

  /** Login completed (`CB:success`): the connection is open. */
  open(): void {
    const creds = this.config.auth.creds;
    this.user = { id: creds.me?.id ?? '', name: creds.me?.name, lid: creds.me?.lid };
    this.emit('creds.update', { me: { ...creds.me, id: creds.me?.id ?? '' } });
    this.emit('connection.update', { connection: 'open' });
    this.emit('connection.update', { receivedPendingNotifications: true });
  }

  /** The connection ends the way Baileys reports it: `close` with a Boom (or a socket error). */
  async closeWith(statusCode: number | undefined, message: string): Promise<void> {
    await this.end(boom(statusCode, message));
  }

  receive(messages: proto.IWebMessageInfo[], type: 'notify' | 'append' = 'notify'): void {
    const built = messages.map((message) => proto.WebMessageInfo.fromObject(message) as WAMessage);
    this.emit('messages.upsert', { messages: built, type });
  }

  // ── What the driver calls ──

  async requestPairingCode(phoneNumber: string): Promise<string> {
    this.pairingRequests.push(phoneNumber);
    // Baileys stores the number as `me` before asking the server.
    const creds = this.config.auth.creds;
    creds.pairingCode = this.pairingCode;
    creds.me = { id: `${phoneNumber}@s.whatsapp.net`, name: '~' };
    this.emit('creds.update', creds);
    return this.pairingCode;
  }

  /** Groups the server knows: `groupMetadata` answers from here and counts the queries. */
  readonly groups = new Map<string, GroupMetadata>();
  groupQueries = 0;

  async groupMetadata(jid: string): Promise<GroupMetadata> {
    this.groupQueries += 1;
    const group = this.groups.get(jid);
    if (!group) throw boom(404, 'item-not-found');
    return group;
  }

  async sendMessage(
    jid: string,
    content: AnyMessageContent,
    options: MiscMessageGenerationOptions = {},
  ): Promise<WAMessage | undefined> {
    if (this.failSends) throw this.failSends;
    const message = await generateWAMessage(jid, content, {
      ...options,
      userJid: this.user?.id ?? '',
      upload: async (_path, options) => {
        this.uploads.push({ mediaType: options.mediaType, bytes: 0 });
        return {
          mediaUrl: `https://mmg.whatsapp.net/fake/${options.mediaType}`,
          directPath: `/fake/${options.mediaType}`,
        };
      },
      logger: silentLogger,
    });
    this.sent.push({ jid, content, message });
    return message;
  }

  async relayMessage(
    jid: string,
    message: proto.IMessage,
    options: { messageId?: string; additionalNodes?: BinaryNode[] },
  ): Promise<string> {
    if (this.failSends) throw this.failSends;
    this.relayed.push({ jid, message, options });
    return options.messageId ?? 'RELAYED';
  }

  readonly reads: proto.IMessageKey[][] = [];
  readonly presences: { type: string; toJid?: string }[] = [];
  /** Numbers (digits) the fake network says are not on WhatsApp. */
  readonly notOnWhatsApp = new Set<string>();

  async readMessages(keys: proto.IMessageKey[]): Promise<void> {
    this.reads.push(keys);
  }

  async sendPresenceUpdate(type: string, toJid?: string): Promise<void> {
    this.presences.push({ type, toJid });
  }

  /** As Baileys answers: only the numbers that are on WhatsApp, each with its JID. */
  async onWhatsApp(...jids: string[]): Promise<{ jid: string; exists: boolean }[]> {
    return jids
      .map((jid) => jid.split('@')[0]!)
      .filter((digits) => !this.notOnWhatsApp.has(digits))
      .map((digits) => ({ jid: `${digits}@s.whatsapp.net`, exists: true }));
  }

  async logout(): Promise<void> {
    this.loggedOut = true;
    await this.end(boom(401, 'Intentional Logout'));
  }

  async end(error: Error | undefined): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
    this.emitter.removeAllListeners();
  }
}

/** Hands out fake sockets and keeps them, newest last. */
export class FakeWhatsApp {
  readonly sockets: FakeBaileysSocket[] = [];
  /** When set, every new socket fails to connect as a machine without internet does. */
  offline = false;

  readonly factory: WhatsAppSocketFactory = (config) => {
    const socket = new FakeBaileysSocket(config);
    this.sockets.push(socket);
    if (this.offline) {
      setTimeout(() => void socket.closeWith(undefined, 'getaddrinfo EAI_AGAIN web.whatsapp.com'), 1);
    }
    return socket;
  };

  get latest(): FakeBaileysSocket {
    const socket = this.sockets[this.sockets.length - 1];
    if (!socket) throw new Error('no socket was created');
    return socket;
  }

  /** Waits until the driver has created its `count`-th socket, and returns it. */
  async socket(count: number, timeoutMs = 2_000): Promise<FakeBaileysSocket> {
    const deadline = Date.now() + timeoutMs;
    while (this.sockets.length < count) {
      if (Date.now() > deadline) throw new Error(`expected socket #${count}, have ${this.sockets.length}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return this.sockets[count - 1] as FakeBaileysSocket;
  }
}

const silentLogger = {
  level: 'silent',
  child: () => silentLogger,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
