import type { InboundNetworkMessage } from '@jumbe/domain';
import type { SandboxGroupBook } from './sandbox-group-book';
import type { OutboundKind } from '@jumbe/contracts';
import type { SessionRef } from '../session-ref';

/** How a session waiting to be linked can be linked: by scanning its QR, or by typing its pairing code. */
export type SandboxPendingLogin =
  { kind: 'qr'; qr: string } | { kind: 'pairing_code'; code: string; phoneNumber: string };

/** What the simulated network received from a session (CONTRACT §9, `GET /sandbox/outbox`). */
export interface SandboxOutboxEntry {
  /** Equals the `key.id` the send returned. */
  id: string;
  /** The `remoteJid` of the send. */
  to: string;
  /** The message's kind, or a chat action. */
  type: OutboundKind | 'read' | 'presence';
  /** The message fields of the send (everything but `to`). */
  content: Record<string, unknown>;
  /** ISO 8601. */
  createdAt: string;
}

/**
 * Outbox entries that are chat actions rather than messages (read receipts, typing): the network
 * acknowledges no message for them, so no status is ever reported for their ids.
 */
export function isSentMessage(entry: Pick<SandboxOutboxEntry, 'type'>): boolean {
  return entry.type !== 'read' && entry.type !== 'presence';
}

/** The outbox is a debugging aid, not an archive: each session keeps its newest entries only. */
export const SANDBOX_OUTBOX_CAPACITY = 1_000;

/** A message a contact sent the session, as a reply may quote it (issue 12 item 6). */
export interface SandboxReceivedEntry {
  /** The network message id (`message.id` of the event). */
  id: string;
  /** The chats a reply may quote it in: where it arrived, and the event's `replyTo` when that differs. */
  chats: string[];
  /** ISO 8601. */
  createdAt: string;
}

/** Received messages a session can quote: the newest ones, for a week (as on the real network). */
export const SANDBOX_RECEIVED_CAPACITY = 1_000;
export const SANDBOX_RECEIVED_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** A file a simulated contact attached to a media message, for `GET /messages/media`. */
export interface SandboxMediaFile {
  mimetype: string;
  fileName: string | null;
  data: Buffer;
}

/** How long the simulated media servers keep a file: as long as Jumbe promises to serve it. */
export const SANDBOX_MEDIA_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Files the simulated media servers keep per session; the oldest go first. */
export const SANDBOX_MEDIA_FILES_PER_SESSION = 100;

export type SandboxLoginOutcome = 'linked' | 'not_ready' | 'number_in_use';

/**
 * The state of the simulated network, shared by every worker of a deployment so a session keeps
 * its link, outbox and undelivered messages when its shard moves to another worker. "Online"
 * means some worker holds the session's connection (connected or reconnecting); it is what makes
 * a number "in use" for other sessions.
 *
 * Implementations: MemorySandboxStore (one process) and RedisSandboxStore (distributed), with
 * identical semantics.
 */
export interface SandboxStore {
  /** Replaces the session's pending login; it lapses by itself after `ttlMs` (a QR nobody scanned). */
  setPendingLogin(ref: SessionRef, login: SandboxPendingLogin, ttlMs: number): Promise<void>;
  pendingLogin(ref: SessionRef): Promise<SandboxPendingLogin | null>;
  clearPendingLogin(ref: SessionRef): Promise<void>;

  /**
   * A phone with `phoneNumber` scans the QR or enters the code, in one atomic step: refused with
   * `not_ready` without a pending login, `number_in_use` when another online session holds the
   * number. Otherwise links the session to the number, marks it online and consumes the pending
   * login; an offline session that held the number loses its link (the phone moved on), and the
   * session's own previous number, if different, is released.
   */
  completeLogin(ref: SessionRef, phoneNumber: string): Promise<SandboxLoginOutcome>;
  /** Reconnect with existing credentials: marks the session online and returns its number, or null when not linked. */
  goOnline(ref: SessionRef): Promise<string | null>;
  /**
   * Reconnect with credentials the network has no link for (its state was lost: the all-in-one's
   * in-memory network after a restart). The link is restored from them and the session marked
   * online, returning the number; null when another session holds that number now. A session
   * linked already just goes online with its own number, as with goOnline.
   */
  resumeLink(ref: SessionRef, phoneNumber: string): Promise<string | null>;
  goOffline(ref: SessionRef): Promise<void>;
  linkedNumber(ref: SessionRef): Promise<string | null>;
  /** The device is unlinked: number released, session offline, pending login and undelivered messages dropped. */
  unlink(ref: SessionRef): Promise<void>;

  /** Prepends an entry, dropping the oldest beyond SANDBOX_OUTBOX_CAPACITY. */
  appendOutbox(ref: SessionRef, entry: SandboxOutboxEntry): Promise<void>;
  /** Newest first, at most `limit` (and never more than SANDBOX_OUTBOX_CAPACITY). */
  outbox(ref: SessionRef, limit: number): Promise<SandboxOutboxEntry[]>;

  /**
   * A message the network holds for the session until the session acknowledges it; with
   * `quotable`, also remembered for replies to quote (as `rememberReceived`), in the same step.
   */
  addPendingInbound(
    ref: SessionRef,
    message: InboundNetworkMessage,
    quotable?: SandboxReceivedEntry,
  ): Promise<void>;
  /** Unacknowledged messages, oldest first. */
  pendingInbound(ref: SessionRef): Promise<InboundNetworkMessage[]>;
  acknowledgeInbound(ref: SessionRef, messageId: string): Promise<void>;

  /**
   * Keeps a message a contact sent for replies to quote: prepended, the oldest dropped beyond
   * SANDBOX_RECEIVED_CAPACITY, and all forgotten SANDBOX_RECEIVED_TTL_MS after the newest.
   */
  rememberReceived(ref: SessionRef, entry: SandboxReceivedEntry): Promise<void>;
  /** Newest first, those younger than SANDBOX_RECEIVED_TTL_MS. */
  received(ref: SessionRef): Promise<SandboxReceivedEntry[]>;
  /**
   * The file of a received media message, held by the "media servers" for `ttlMs`, the newest
   * SANDBOX_MEDIA_FILES_PER_SESSION of each session.
   */
  putMediaFile(ref: SessionRef, messageId: string, file: SandboxMediaFile, ttlMs: number): Promise<void>;
  /** Null when the message carried no file, or it expired. */
  mediaFile(ref: SessionRef, messageId: string): Promise<SandboxMediaFile | null>;

  /** The simulated network's groups (`/groups`), shared by every worker like the rest. */
  groupBook(): SandboxGroupBook;
}
