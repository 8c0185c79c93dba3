import type { InboundNetworkMessage } from '@jumbe/domain';
import { MemorySandboxGroupBook, type SandboxGroupBook } from './sandbox-group-book';
import { sessionRefKey, type SessionRef } from '../session-ref';
import { inboundMessageFromJson, inboundMessageToJson } from './inbound-message-json';
import {
  SANDBOX_MEDIA_FILES_PER_SESSION,
  SANDBOX_OUTBOX_CAPACITY,
  type SandboxLoginOutcome,
  type SandboxMediaFile,
  type SandboxOutboxEntry,
  type SandboxPendingLogin,
  SANDBOX_RECEIVED_CAPACITY,
  SANDBOX_RECEIVED_TTL_MS,
  type SandboxReceivedEntry,
  type SandboxStore,
} from './sandbox-store';

/** Media files the in-process network holds at most; the oldest go first. */
const MEMORY_MEDIA_FILES = 1_000;

const mediaKey = (ref: SessionRef, messageId: string) => `${sessionRefKey(ref)}/${messageId}`;

interface SessionRecord {
  login: { value: SandboxPendingLogin; expiresAt: number } | null;
  number: string | null;
  online: boolean;
  /**
   * The sent entries as JSON text, oldest first, trimmed to the capacity once twice the capacity
   * is reached: a send appends one string (no copy back, no shifting of the whole outbox), and
   * readers, who see at most the capacity, parse the newest.
   */
  outbox: string[];
  /** Id → the message as JSON text (written once, parsed by each reader); insertion order is delivery order. */
  inbound: Map<string, string>;
  /** As JSON text, oldest first, trimmed like the outbox (the received capacity kept). */
  received: string[];
}

/**
 * The sandbox network inside one process (all-in-one mode, unit tests). Values go in and out as
 * JSON copies, exactly as through Redis: callers cannot alter the "network" through an object
 * they still hold, and what survives the trip (no `undefined` fields, say) is the same.
 */
export class MemorySandboxStore implements SandboxStore {
  private readonly sessions = new Map<string, SessionRecord>();
  /** Number → key of the session it is linked to. */
  private readonly numbers = new Map<string, string>();

  /** Files of received media messages, oldest first (bounded: this is one process's memory). */
  private readonly media = new Map<string, { file: SandboxMediaFile; expiresAt: number }>();

  private readonly groups = new MemorySandboxGroupBook();

  constructor(private readonly now: () => number = Date.now) {}

  groupBook(): SandboxGroupBook {
    return this.groups;
  }

  async putMediaFile(
    ref: SessionRef,
    messageId: string,
    file: SandboxMediaFile,
    ttlMs: number,
  ): Promise<void> {
    const key = mediaKey(ref, messageId);
    this.media.delete(key);
    this.media.set(key, { file: { ...file, data: Buffer.from(file.data) }, expiresAt: this.now() + ttlMs });
    const ofSession = [...this.media.keys()].filter((each) => each.startsWith(`${sessionRefKey(ref)}/`));
    for (const old of ofSession.slice(0, Math.max(0, ofSession.length - SANDBOX_MEDIA_FILES_PER_SESSION))) {
      this.media.delete(old);
    }
    for (const old of this.media.keys()) {
      if (this.media.size <= MEMORY_MEDIA_FILES) break;
      this.media.delete(old);
    }
  }

  async mediaFile(ref: SessionRef, messageId: string): Promise<SandboxMediaFile | null> {
    const entry = this.media.get(mediaKey(ref, messageId));
    if (!entry || entry.expiresAt <= this.now()) return null;
    return { ...entry.file, data: Buffer.from(entry.file.data) };
  }

  async setPendingLogin(ref: SessionRef, login: SandboxPendingLogin, ttlMs: number): Promise<void> {
    this.record(ref).login = { value: copy(login), expiresAt: this.now() + ttlMs };
  }

  async pendingLogin(ref: SessionRef): Promise<SandboxPendingLogin | null> {
    const login = this.liveLogin(ref);
    return login === null ? null : copy(login);
  }

  async clearPendingLogin(ref: SessionRef): Promise<void> {
    this.record(ref).login = null;
  }

  async completeLogin(ref: SessionRef, phoneNumber: string): Promise<SandboxLoginOutcome> {
    if (this.liveLogin(ref) === null) return 'not_ready';
    const key = sessionRefKey(ref);
    const holderKey = this.numbers.get(phoneNumber);
    if (holderKey !== undefined && holderKey !== key) {
      const holder = this.sessions.get(holderKey);
      if (holder?.online) return 'number_in_use';
      if (holder) holder.number = null;
    }
    const session = this.record(ref);
    if (
      session.number !== null &&
      session.number !== phoneNumber &&
      this.numbers.get(session.number) === key
    ) {
      this.numbers.delete(session.number);
    }
    session.number = phoneNumber;
    session.online = true;
    session.login = null;
    this.numbers.set(phoneNumber, key);
    return 'linked';
  }

  async goOnline(ref: SessionRef): Promise<string | null> {
    const session = this.sessions.get(sessionRefKey(ref));
    if (!session || session.number === null) return null;
    session.online = true;
    return session.number;
  }

  async resumeLink(ref: SessionRef, phoneNumber: string): Promise<string | null> {
    const key = sessionRefKey(ref);
    const session = this.record(ref);
    if (session.number === null) {
      const holder = this.numbers.get(phoneNumber);
      if (holder !== undefined && holder !== key) return null;
      session.number = phoneNumber;
      this.numbers.set(phoneNumber, key);
    }
    session.online = true;
    return session.number;
  }

  async goOffline(ref: SessionRef): Promise<void> {
    const session = this.sessions.get(sessionRefKey(ref));
    if (session) session.online = false;
  }

  async linkedNumber(ref: SessionRef): Promise<string | null> {
    return this.sessions.get(sessionRefKey(ref))?.number ?? null;
  }

  async unlink(ref: SessionRef): Promise<void> {
    const key = sessionRefKey(ref);
    const session = this.sessions.get(key);
    if (!session) return;
    if (session.number !== null && this.numbers.get(session.number) === key)
      this.numbers.delete(session.number);
    session.number = null;
    session.online = false;
    session.login = null;
    session.inbound.clear();
  }

  async appendOutbox(ref: SessionRef, entry: SandboxOutboxEntry): Promise<void> {
    const outbox = this.record(ref).outbox;
    outbox.push(JSON.stringify(entry));
    if (outbox.length >= 2 * SANDBOX_OUTBOX_CAPACITY)
      outbox.splice(0, outbox.length - SANDBOX_OUTBOX_CAPACITY);
  }

  async outbox(ref: SessionRef, limit: number): Promise<SandboxOutboxEntry[]> {
    const outbox = this.sessions.get(sessionRefKey(ref))?.outbox ?? [];
    const count = Math.max(0, Math.min(Math.floor(limit), SANDBOX_OUTBOX_CAPACITY, outbox.length));
    const newestFirst: SandboxOutboxEntry[] = [];
    for (let i = outbox.length - 1; newestFirst.length < count; i -= 1) {
      newestFirst.push(JSON.parse(outbox[i] as string) as SandboxOutboxEntry);
    }
    return newestFirst;
  }

  async addPendingInbound(
    ref: SessionRef,
    message: InboundNetworkMessage,
    quotable?: SandboxReceivedEntry,
  ): Promise<void> {
    if (quotable) await this.rememberReceived(ref, quotable);
    // Re-adding an id moves it to the end, as in Redis.
    const inbound = this.record(ref).inbound;
    inbound.delete(message.id);
    inbound.set(message.id, inboundMessageToJson(message));
  }

  async pendingInbound(ref: SessionRef): Promise<InboundNetworkMessage[]> {
    const inbound = this.sessions.get(sessionRefKey(ref))?.inbound;
    return inbound ? [...inbound.values()].map(inboundMessageFromJson) : [];
  }

  async acknowledgeInbound(ref: SessionRef, messageId: string): Promise<void> {
    this.sessions.get(sessionRefKey(ref))?.inbound.delete(messageId);
  }

  async rememberReceived(ref: SessionRef, entry: SandboxReceivedEntry): Promise<void> {
    // Appended, not unshifted: every contact message comes through here, and shifting a full
    // list of SANDBOX_RECEIVED_CAPACITY entries each time showed in the all-in-one's profile.
    const received = this.record(ref).received;
    received.push(JSON.stringify(entry));
    if (received.length >= 2 * SANDBOX_RECEIVED_CAPACITY)
      received.splice(0, received.length - SANDBOX_RECEIVED_CAPACITY);
  }

  async received(ref: SessionRef): Promise<SandboxReceivedEntry[]> {
    const since = this.now() - SANDBOX_RECEIVED_TTL_MS;
    const received = this.sessions.get(sessionRefKey(ref))?.received ?? [];
    const newestFirst: SandboxReceivedEntry[] = [];
    // The newest SANDBOX_RECEIVED_CAPACITY, then those younger than the time to live, as Redis keeps them.
    for (let i = received.length - 1; i >= Math.max(0, received.length - SANDBOX_RECEIVED_CAPACITY); i -= 1) {
      const entry = JSON.parse(received[i] as string) as SandboxReceivedEntry;
      if (Date.parse(entry.createdAt) > since) newestFirst.push(entry);
    }
    return newestFirst;
  }

  private liveLogin(ref: SessionRef): SandboxPendingLogin | null {
    const session = this.sessions.get(sessionRefKey(ref));
    if (!session?.login) return null;
    if (session.login.expiresAt <= this.now()) {
      session.login = null;
      return null;
    }
    return session.login.value;
  }

  private record(ref: SessionRef): SessionRecord {
    const key = sessionRefKey(ref);
    let session = this.sessions.get(key);
    if (!session) {
      session = { login: null, number: null, online: false, outbox: [], inbound: new Map(), received: [] };
      this.sessions.set(key, session);
    }
    return session;
  }
}

function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
