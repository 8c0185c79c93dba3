import {
  areJidsSameUser,
  type BinaryNode,
  getBinaryNodeChild,
  getBinaryNodeChildren,
  isJidGroup,
  jidDecode,
  proto,
} from '@whiskeysockets/baileys';
import type { Logger } from 'pino';
import type { BoundedCache } from './bounded-cache';
import { carriesNativeFlow, nativeFlowStanzaNodes } from './interactive-mapper';
import type { SentMessageArchive } from './sent-message-archive';
import type { WhatsAppSocket } from './whatsapp-socket';

/** Baileys' default `maxMsgRetryCount` (the driver does not change it). */
const MAX_MSG_RETRY_COUNT = 5;
/** How long a retry receipt may wait for Baileys to take it up first (offline ones queue behind the backlog). */
const BAILEYS_TURN_TIMEOUT_MS = 60_000;
const POLL_MS = 20;

/** The private hook of Baileys' MessageRetryManager (rc14) that forgets a recently sent message. */
type RecentMessages = { removeRecentMessage?: (messageId: string) => void };

/**
 * Answers recipients' retry receipts for messages whose stanza carries nodes beyond the message
 * itself (interactive messages: `<biz>`, and `<bot>` in direct chats), which Baileys 7.0.0-rc14
 * would resend without them (its resend passes only the id and the participant), so they would not
 * render. For those messages Baileys must find nothing to resend: `getMessage` returns nothing
 * (see `handles`) and each is dropped from Baileys' own recent-message cache after it is sent
 * (`forgetInBaileys`). Baileys still takes the receipt first and prepares the Signal session
 * (a fresh key bundle, its retry counter); then this resends the message with its nodes, under
 * Baileys' receipt lock, with exactly Baileys' own retry limits and targets.
 */
export class NodeCarryingResends {
  private readonly recent: RecentMessages | null;
  private stopped = false;

  /** Null when this Baileys offers no safe way to do it: Baileys then resends such messages itself. */
  static attach(
    socket: WhatsAppSocket,
    archive: SentMessageArchive,
    retryCounters: BoundedCache,
    logger: Logger,
  ): NodeCarryingResends | null {
    const manager = socket.messageRetryManager as RecentMessages | null | undefined;
    // Undefined: not Baileys' socket (a test fake); a cache without the hook: a Baileys that changed.
    const forgettable = manager === null || typeof manager?.removeRecentMessage === 'function';
    if (!socket.ws || !socket.receiptMutex || manager === undefined || !forgettable) return null;
    const resends = new NodeCarryingResends(socket, archive, retryCounters, logger, manager);
    // Registered after Baileys' own listener (made with the socket), so it runs after Baileys queued its work.
    socket.ws.on('CB:receipt', (node) => void resends.onReceipt(node));
    return resends;
  }

  private constructor(
    private readonly socket: WhatsAppSocket,
    private readonly archive: SentMessageArchive,
    private readonly retryCounters: BoundedCache,
    private readonly logger: Logger,
    recent: RecentMessages | null,
  ) {
    this.recent = recent;
  }

  /** Whether retries of `message` are answered here rather than by Baileys. */
  static handles(message: proto.IMessage | undefined): boolean {
    return message !== undefined && carriesNativeFlow(message);
  }

  /** The socket is gone: receipts still waiting for Baileys are dropped (the recipient asks again). */
  stop(): void {
    this.stopped = true;
  }

  /** After a send: Baileys must not find the message in its own cache when a retry comes. */
  forgetInBaileys(messageId: string): void {
    this.recent?.removeRecentMessage?.(messageId);
  }

  private async onReceipt(node: BinaryNode): Promise<void> {
    const { attrs } = node;
    if (attrs.type !== 'retry' || !attrs.from || !attrs.id) return;
    const target = this.retryTarget(node);
    if (!target) return;
    // Read now, before Baileys' own handling (queued just before this listener ran) counts it.
    const before = this.retryCounters.get<number>(target.counterKey) ?? 0;
    if (before >= MAX_MSG_RETRY_COUNT) return; // Baileys will not resend either.
    const message = await this.archive.find(attrs.id);
    if (!NodeCarryingResends.handles(message)) return;
    try {
      // Baileys counts the receipt when it takes it up (under its lock); queueing behind it then
      // means its session preparation (fresh bundle, base-key checks) is done when this resends.
      if (!(await this.untilBaileysTookIt(target.counterKey, before))) return;
      await this.socket.receiptMutex?.mutex(() => this.resend(target, message as proto.IMessage));
    } catch (error) {
      this.logger.warn({ err: error, messageId: attrs.id }, 'could not answer a retry receipt');
    }
  }

  private async resend(target: RetryTarget, message: proto.IMessage): Promise<void> {
    if (this.stopped) return;
    // Baileys' own second check before a resend (and its second count).
    const count = this.retryCounters.get<number>(target.counterKey) ?? 0;
    if (count >= MAX_MSG_RETRY_COUNT) return;
    this.retryCounters.set(target.counterKey, count + 1);
    await this.socket.relayMessage(target.remoteJid, message, {
      messageId: target.messageId,
      // As Baileys: a request from a user's primary JID re-sends to all of its devices.
      ...(target.toAllDevices
        ? { useUserDevicesCache: false }
        : { participant: { jid: target.participant, count: target.count } }),
      additionalNodes: nativeFlowStanzaNodes(target.remoteJid, Date.now()),
    });
    this.forgetInBaileys(target.messageId);
    this.logger.debug({ messageId: target.messageId }, 'resent a message with its stanza nodes');
  }

  /** Who asked, for which chat: Baileys' handleReceipt and sendMessagesAgain, restated. */
  private retryTarget(node: BinaryNode): RetryTarget | null {
    const { attrs } = node;
    const from = attrs.from ?? '';
    const me = this.socket.user;
    const isNodeFromMe = areJidsSameUser(
      attrs.participant || from,
      from.includes('lid') ? (me?.lid ?? undefined) : me?.id,
    );
    const fromMe = !attrs.recipient || isNodeFromMe;
    if (!fromMe) return null;
    const remoteJid = !isNodeFromMe || isJidGroup(from) ? from : (attrs.recipient ?? '');
    const participant = attrs.participant || from;
    const messageId = attrs.id ?? '';
    const list = Array.isArray(node.content) ? getBinaryNodeChildren(node.content[0], 'item') : [];
    // Baileys resends every id of a batched receipt; batches only come for our own devices' reads.
    if (list.length > 0) return null;
    return {
      remoteJid,
      messageId,
      participant,
      counterKey: `${messageId}:${participant}`,
      count: Number(getBinaryNodeChild(node, 'retry')?.attrs.count ?? 1),
      toAllDevices: !jidDecode(participant)?.device,
    };
  }

  /** False when the socket went away first. */
  private async untilBaileysTookIt(counterKey: string, before: number): Promise<boolean> {
    const deadline = Date.now() + BAILEYS_TURN_TIMEOUT_MS;
    while ((this.retryCounters.get<number>(counterKey) ?? 0) <= before) {
      if (this.stopped) return false;
      if (Date.now() > deadline) throw new Error('Baileys never took the retry receipt up');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return !this.stopped;
  }
}

interface RetryTarget {
  remoteJid: string;
  messageId: string;
  /** Who asked: a device JID, or a user's primary JID (then every device gets it). */
  participant: string;
  /** Baileys' retry counter key for this message and participant. */
  counterKey: string;
  count: number;
  toAllDevices: boolean;
}
