import {
  type BinaryNode,
  type MessageUserReceiptUpdate,
  proto,
  type WAMessageUpdate,
} from '@whiskeysockets/baileys';
import type { SentMessageStatus } from '../message-status-report';

/** A status Baileys reported for one of the session's own messages, before we know it was an API send. */
export interface OwnMessageStatus {
  messageId: string;
  /** The chat of the message (`key.remoteJid`). */
  chat: string;
  status: SentMessageStatus;
  at: Date;
}

const Status = proto.WebMessageInfo.Status;

/** Baileys' `WebMessageInfo.Status` in our terms; PENDING (not yet sent) is no report. */
const BY_WA_STATUS = new Map<number, SentMessageStatus>([
  [Status.ERROR, 'failed'],
  [Status.SERVER_ACK, 'server_ack'],
  [Status.DELIVERY_ACK, 'delivered'],
  [Status.READ, 'read'],
  [Status.PLAYED, 'played'],
]);

/**
 * A `messages.update` entry about a message this session sent (a direct chat's receipt, or the
 * server refusing it), or null for any other update (edits, revokes, reactions, stubs…).
 */
export function statusOfUpdate(entry: WAMessageUpdate, now: Date): OwnMessageStatus | null {
  const { key, update } = entry;
  if (!key.fromMe || !key.id || !key.remoteJid || typeof update.status !== 'number') return null;
  const status = BY_WA_STATUS.get(update.status);
  if (status === undefined) return null;
  return { messageId: key.id, chat: key.remoteJid, status, at: secondsOr(update.messageTimestamp, now) };
}

/**
 * A `message-receipt.update` entry (one group member's device receipt for a message this
 * session sent): the furthest step it reports, or null.
 */
export function statusOfReceipt(entry: MessageUserReceiptUpdate, now: Date): OwnMessageStatus | null {
  const { key, receipt } = entry;
  if (!key.fromMe || !key.id || !key.remoteJid) return null;
  const steps: [SentMessageStatus, unknown][] = [
    ['played', receipt.playedTimestamp],
    ['read', receipt.readTimestamp],
    ['delivered', receipt.receiptTimestamp],
  ];
  const reached = steps.find(([, seconds]) => seconds !== null && seconds !== undefined);
  if (!reached) return null;
  return { messageId: key.id, chat: key.remoteJid, status: reached[0], at: secondsOr(reached[1], now) };
}

/**
 * The server's ack of a message this session sent (`<ack class="message" id=… from=…>`): the
 * server took it. An ack with an error is no server_ack (Baileys reports it as ERROR → failed).
 */
export function statusOfAck(node: BinaryNode, now: Date): OwnMessageStatus | null {
  const { id, from, error } = node.attrs;
  if (!id || !from || error) return null;
  return { messageId: id, chat: from, status: 'server_ack', at: secondsOr(node.attrs.t, now) };
}

/** A network time in seconds (number or protobuf Long); `fallback` when absent or zero. */
function secondsOr(value: unknown, fallback: Date): Date {
  const seconds =
    typeof value === 'number' ? value : Number((value as { toString(): string } | null)?.toString());
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : fallback;
}
