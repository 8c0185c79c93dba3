import type {
  AnyMessageContent,
  BaileysEventMap,
  BinaryNode,
  Contact,
  GroupMetadata,
  MiscMessageGenerationOptions,
  proto,
  SocketConfig,
  UserFacingSocketConfig,
  WAMessage,
} from '@whiskeysockets/baileys';

/**
 * The part of a Baileys socket (`makeWASocket`'s result) the driver uses. The real socket is
 * structurally one of these; tests inject a fake through WhatsAppSocketFactory that emits the
 * library's own event shapes and records what was sent.
 */
export interface WhatsAppSocket {
  readonly ev: {
    on<E extends keyof BaileysEventMap>(event: E, listener: (arg: BaileysEventMap[E]) => void): void;
    /** Emits what Baileys buffers (it buffers events while it processes offline notifications). */
    flush?(): boolean;
    /** Whether Baileys holds events in its buffer now (EventBufferDrain). */
    isBuffering?(): boolean;
    /** How Baileys emits (or buffers) an event: wrapped by EventBufferDrain. */
    emit?<E extends keyof BaileysEventMap>(event: E, arg: BaileysEventMap[E]): boolean;
  };
  /**
   * The raw connection: the driver listens for the server's acks of sent messages
   * (`CB:ack,class:message`), which Baileys turns into no event unless they carry an error.
   */
  readonly ws?: {
    on(
      event: 'CB:ack,class:message' | 'CB:receipt' | 'CB:message' | 'CB:ib,,offline',
      listener: (node: BinaryNode) => void,
    ): unknown;
  };
  /** Baileys' lock over receipt handling: retry receipts are answered under it (NodeCarryingResends). */
  readonly receiptMutex?: { mutex<T>(work: () => Promise<T>): Promise<T> };
  /** Baileys' cache of recently sent messages it resends from on a retry receipt (null when off). */
  readonly messageRetryManager?: object | null;
  /** Set once logged in: `me` with `id` `<digits>:<device>@s.whatsapp.net` (and `lid`). */
  readonly user?: Contact | undefined;
  readonly signalRepository: {
    lidMapping: { getPNForLID(lid: string): Promise<string | null> };
  };
  requestPairingCode(phoneNumber: string): Promise<string>;
  /** Asks the server for a group's subject and participants. */
  groupMetadata(jid: string): Promise<GroupMetadata>;
  /** `options.quoted`: the message a reply quotes. */
  sendMessage(
    jid: string,
    content: AnyMessageContent,
    options?: MiscMessageGenerationOptions,
  ): Promise<WAMessage | undefined>;
  /** Sends read receipts for received messages. */
  readMessages(keys: proto.IMessageKey[]): Promise<void>;
  sendPresenceUpdate(
    type: 'composing' | 'recording' | 'paused' | 'available' | 'unavailable',
    toJid?: string,
  ): Promise<void>;
  /** Asks the server which of the given JIDs are on WhatsApp. */
  onWhatsApp(...jids: string[]): Promise<{ jid: string; exists: boolean }[] | undefined>;
  relayMessage(
    jid: string,
    message: proto.IMessage,
    options: {
      messageId?: string;
      additionalNodes?: BinaryNode[];
      /** A retry resend to one device (Baileys' own resend passes it). */
      participant?: { jid: string; count: number };
      useUserDevicesCache?: boolean;
    },
  ): Promise<string>;
  /** Sends an IQ and resolves with WhatsApp's answer (rejects on an error answer or a timeout). */
  query?(node: BinaryNode, timeoutMs?: number): Promise<BinaryNode>;
  /** Asks the phone to upload a received media file again; resolves with the message's new direct path. */
  updateMediaMessage?(message: WAMessage): Promise<WAMessage>;
  /** Unlinks this device on the phone, then closes (401 loggedOut). */
  logout(message?: string): Promise<void>;
  /** Closes the connection; emits `connection.update` `close` with `error` as the reason. */
  end(error: Error | undefined): Promise<void> | void;
}

/** Makes a socket from the options the driver chose; the default calls Baileys' `makeWASocket`. */
export type WhatsAppSocketFactory = (config: UserFacingSocketConfig) => WhatsAppSocket;

/** Baileys' logger interface (pino's Logger satisfies it). */
export type BaileysLogger = SocketConfig['logger'];
