import { changeRefusal, contactVcard, type MessageChange } from '@jumbe/domain';
import {
  type AnyMessageContent,
  generateWAMessageFromContent,
  type MiscMessageGenerationOptions,
  type proto,
  type WAMessage,
} from '@whiskeysockets/baileys';
import { NetworkSendError } from '../network-send-error';
import type {
  OutboundContact,
  OutboundEdit,
  OutboundInteractive,
  OutboundMedia,
  OutboundMessage,
  OutboundReaction,
  OutboundRevoke,
  OutboundStatus,
  OutboundText,
  Quoting,
} from '../outbound-message';
import { nothingLeft, sendDeadline, sendDeadlinePassed } from '../send-deadline';
import type { SentKey } from '../sent-key';
import { messageOf } from './error-message';
import { buildInteractiveContent, nativeFlowStanzaNodes } from './interactive-mapper';
import { type FetchedMedia, fetchMedia, mediaMessageContent, readUpload } from './media-content';
import type { UnackedResender } from './unacked-resender';
import type { WhatsAppSessionContext } from './whatsapp-session-context';
import type { WhatsAppSocket } from './whatsapp-socket';
import { withTimeout } from './with-timeout';

/** What sending needs of the session's connection. */
export interface SendingConnection {
  /** The socket of the connected session; `session_not_connected` when there is none. */
  connectedSocket(): WhatsAppSocket;
  /** An interactive message went out on `socket`: its retries are NodeCarryingResends', not Baileys'. */
  interactiveSent(socket: WhatsAppSocket, messageId: string): void;
}

type SenderContext = Pick<WhatsAppSessionContext, 'settings' | 'sent' | 'quotes' | 'memory' | 'auth'>;

/**
 * Sends one session's messages of every kind, and records what went out (for retry receipts,
 * quotes, statuses, and a resend when WhatsApp's server never acknowledges it).
 */
export class SessionSender {
  /**
   * Sends handed to Baileys and not yet recorded as ours: WhatsApp's ack (or a fast receipt) can
   * arrive before `relay` has remembered the message id, and must wait for it instead of being
   * taken for a message sent from the phone.
   */
  private readonly unrecordedSends = new Set<Promise<unknown>>();
  constructor(
    private readonly context: SenderContext,
    private readonly connection: SendingConnection,
    /** Sends WhatsApp's server has not acknowledged: they go out again on the next socket. */
    private readonly unacked: Pick<UnackedResender, 'sent'>,
  ) {}

  send(message: OutboundMessage): Promise<SentKey> {
    switch (message.kind) {
      case 'text':
        return this.sendText(message);
      case 'media':
        return this.sendMedia(message);
      case 'interactive':
        return this.sendInteractive(message);
      case 'location':
        return this.sendContent(message, {
          location: {
            degreesLatitude: message.latitude,
            degreesLongitude: message.longitude,
            ...(message.name ? { name: message.name } : {}),
            ...(message.address ? { address: message.address } : {}),
          },
        });
      case 'contact':
        return this.sendContent(message, contactCards(message));
      case 'reaction':
        return this.sendReaction(message);
      case 'revoke':
        return this.changeSent(message, 'revoke', { delete: this.ownKey(message) });
      case 'edit':
        return this.changeSent(message, 'edit', { text: message.text, edit: this.ownKey(message) });
      case 'poll':
        // Baileys adds the poll's secret (messageContextInfo.messageSecret) that votes are
        // encrypted with; the sent-message archive keeps the creation message to decrypt them.
        return this.sendContent(message, {
          poll: {
            name: message.question,
            values: message.options,
            selectableCount: message.multipleChoice ? 0 : 1,
          },
        });
      case 'status':
        return this.sendStatus(message);
    }
  }

  /** Sends being handed to Baileys now (a status arriving meanwhile may be about one of them). */
  inFlight(): Promise<unknown>[] {
    return [...this.unrecordedSends];
  }

  /** A status goes to status@broadcast, encrypted for each listed contact's devices (a sender key). */
  private async sendStatus(message: OutboundStatus): Promise<SentKey> {
    this.connection.connectedSocket();
    const options: MiscMessageGenerationOptions = {
      statusJidList: message.contacts.map((phone) => `${phone}@s.whatsapp.net`),
      broadcast: true,
      ...(message.backgroundColor ? { backgroundColor: message.backgroundColor } : {}),
      ...(message.font !== undefined ? { font: message.font } : {}),
    };
    const audience = { statusJidList: options.statusJidList ?? [] };
    if (message.type === 'text') {
      const text = message.text ?? '';
      return this.relay(STATUS_JID, (socket) => socket.sendMessage(STATUS_JID, { text }, options), audience);
    }
    const { type, url = '', caption } = message;
    return this.withMedia(url, (media) => {
      const content = mediaMessageContent({ kind: 'media', to: STATUS_JID, type, url, caption }, media);
      return this.relay(STATUS_JID, (socket) => socket.sendMessage(STATUS_JID, content, options), audience);
    });
  }

  private ownKey(message: OutboundRevoke | OutboundEdit): proto.IMessageKey {
    return { remoteJid: message.to, id: message.messageId, fromMe: true };
  }

  /** Edits and deletes only what this session sent, within WhatsApp's time limits. */
  private async changeSent(
    message: OutboundRevoke | OutboundEdit,
    change: MessageChange,
    content: AnyMessageContent,
  ): Promise<SentKey> {
    this.connection.connectedSocket();
    const sentAt = await this.context.sent.sentAt(message.messageId);
    if (sentAt === null)
      throw new NetworkSendError(
        'message_not_found',
        `This session has no record of message ${message.messageId} (sent messages are kept for 24 hours).`,
      );
    const refusal = changeRefusal(change, sentAt, new Date());
    if (refusal) throw new NetworkSendError('message_not_editable', refusal);
    return this.relay(message.to, (socket) => socket.sendMessage(message.to, content));
  }

  /** A reaction names the message by its key: ours if this session sent it, else the contact's. */
  private async sendReaction(message: OutboundReaction): Promise<SentKey> {
    const fromMe = (await this.context.sent.find(message.messageId)) !== undefined;
    return this.relay(message.to, (socket) =>
      socket.sendMessage(message.to, {
        react: { text: message.emoji, key: { remoteJid: message.to, id: message.messageId, fromMe } },
      }),
    );
  }

  private sendText(message: OutboundText): Promise<SentKey> {
    return this.sendContent(message, { text: message.text, linkPreview: null });
  }

  /** One message Baileys builds from `content`, quoting what the message replies to. */
  private async sendContent(message: Quoting & { to: string }, content: AnyMessageContent): Promise<SentKey> {
    const reply = await this.replyOptions(message);
    return this.relay(message.to, (socket) => socket.sendMessage(message.to, content, reply));
  }

  /**
   * Baileys' options for a reply: the quoted message, found among what this session received or
   * sent in the same chat; `message_not_found` (sending nothing) when it has no record of it there.
   */
  private async replyOptions(message: Quoting & { to: string }): Promise<MiscMessageGenerationOptions> {
    const id = message.quotedMessageId;
    if (id === undefined) return {};
    this.connection.connectedSocket();
    const quoted = await this.context.quotes.find(id, message.to);
    if (!quoted) {
      throw new NetworkSendError(
        'message_not_found',
        `This session has no record of message ${id} in this chat to quote (received messages are kept for 7 days, sent ones for 24 hours).`,
      );
    }
    return { quoted };
  }

  private async sendMedia(message: OutboundMedia): Promise<SentKey> {
    this.connection.connectedSocket();
    const reply = await this.replyOptions(message);
    const send = (media: FetchedMedia) => {
      const content = mediaMessageContent(message, media);
      return this.relay(message.to, (socket) => socket.sendMessage(message.to, content, reply));
    };
    if (message.upload) return this.withUpload(message.upload, send);
    return this.withMedia(message.url ?? '', send);
  }

  /** Reads an uploaded file within the worker's budget, and releases it once `use` is done. */
  private async withUpload(
    upload: { name: string; size: number },
    use: (media: FetchedMedia) => Promise<SentKey>,
  ): Promise<SentKey> {
    const { settings } = this.context;
    const media = await readUpload(upload, settings.uploads, {
      budget: { bytes: settings.mediaBudget, waitMs: settings.mediaBudgetWaitMs },
    });
    try {
      return await use(media);
    } finally {
      media.release();
    }
  }

  /** Fetches a media URL within the worker's limits and budget, and releases it once `use` is done. */
  private async withMedia(url: string, use: (media: FetchedMedia) => Promise<SentKey>): Promise<SentKey> {
    const { settings } = this.context;
    const media = await fetchMedia(url, {
      allowPrivateNetworks: settings.allowPrivateNetworks,
      maxBytes: settings.mediaMaxBytes,
      timeoutMs: settings.mediaTimeoutMs,
      resolver: settings.mediaResolver,
      budget: { bytes: settings.mediaBudget, waitMs: settings.mediaBudgetWaitMs },
    });
    try {
      return await use(media);
    } finally {
      // The file's bytes count against the worker's media budget until Baileys is done with them.
      media.release();
    }
  }

  private async sendInteractive(message: OutboundInteractive): Promise<SentKey> {
    const { quoted } = await this.replyOptions(message);
    return this.relay(message.to, async (socket) => {
      const userJid = socket.user?.id ?? this.context.auth.state.creds.me?.id ?? '';
      const built = generateWAMessageFromContent(message.to, buildInteractiveContent(message), {
        userJid,
        ...(quoted ? { quoted } : {}),
      });
      await socket.relayMessage(message.to, built.message ?? {}, {
        messageId: built.key.id ?? undefined,
        additionalNodes: nativeFlowStanzaNodes(message.to, Date.now()),
      });
      if (built.key.id) this.connection.interactiveSent(socket, built.key.id);
      return built;
    });
  }

  /** `status`: a status post's audience, which a resend needs again. */
  private async relay(
    to: string,
    work: (socket: WhatsAppSocket) => Promise<WAMessage | undefined>,
    status?: { statusJidList: string[] },
  ): Promise<SentKey> {
    const socket = this.connection.connectedSocket();
    const sending = this.sendAndRecord(socket, to, work, status);
    this.unrecordedSends.add(sending);
    try {
      return await sending;
    } finally {
      this.unrecordedSends.delete(sending);
    }
  }

  private async sendAndRecord(
    socket: WhatsAppSocket,
    to: string,
    work: (socket: WhatsAppSocket) => Promise<WAMessage | undefined>,
    status?: { statusJidList: string[] },
  ): Promise<SentKey> {
    let sent: WAMessage | undefined;
    try {
      // The caller gave up already (the command waited): nothing may go out for it.
      if (sendDeadlinePassed()) throw notSentInTime();
      sent = await untilDeadline(withTimeout(work(socket), this.context.settings.sendTimeoutMs));
    } catch (error) {
      if (error instanceof NetworkSendError) throw error;
      // The deadline guard refused the stanza (deadline-guard.ts): it never left.
      if (sendDeadlinePassed()) throw notSentInTime();
      throw new NetworkSendError('network_error', `WhatsApp did not take the message: ${messageOf(error)}`);
    }
    const id = sent?.key.id;
    if (!id) throw new NetworkSendError('network_error', 'WhatsApp did not return a message key');
    const remoteJid = sent?.key.remoteJid ?? to;
    await this.context.sent.remember(id, sent?.message, remoteJid);
    this.context.memory.sentTo.set(id, remoteJid);
    // Past the deadline the caller has been answered 504 (outcome unknown): a stanza a quiet
    // connection swallowed is held, not sent again, unless a retry learns its id (the fault
    // schedule's seed 49: answered `timeout`, then delivered by the resend after the reconnect).
    if (sent?.message)
      this.unacked.sent(id, remoteJid, sent.message, socket, status?.statusJidList, !sendDeadlinePassed());
    return { remoteJid, fromMe: true, id };
  }
}

/** Where WhatsApp status posts (stories) go. */
const STATUS_JID = 'status@broadcast';

/**
 * A send with a deadline (withSendDeadline) is answered by it if nothing of it has been written to
 * the network yet (it waited on the key store during a PostgreSQL outage, say): the caller gets a
 * definite "not sent" before it gives up, and the deadline guard keeps it from leaving later. Once
 * a frame is out the outcome is WhatsApp's, and the send is awaited as before.
 */
function untilDeadline<T>(work: Promise<T>): Promise<T> {
  const deadline = sendDeadline();
  if (deadline === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const lapsed = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        if (nothingLeft()) reject(notSentInTime());
      },
      Math.max(0, deadline - Date.now()),
    );
  });
  return Promise.race([work, lapsed]).finally(() => clearTimeout(timer));
}

const notSentInTime = () =>
  new NetworkSendError(
    'unavailable',
    'The message was not sent: it could not go out before this request ran out of time (WhatsApp or the session store was slow to answer). Nothing was sent; retry it.',
  );

/** Contact cards as WhatsApp shares them: one vCard per contact, named after the first. */
function contactCards(message: OutboundContact): AnyMessageContent {
  const first = message.contacts[0]?.name ?? 'Contact';
  return {
    contacts: {
      displayName: message.contacts.length === 1 ? first : `${first} and ${message.contacts.length - 1} more`,
      contacts: message.contacts.map((contact) => ({
        displayName: contact.name,
        vcard: contactVcard(contact.name, contact.phoneNumber),
      })),
    },
  };
}
