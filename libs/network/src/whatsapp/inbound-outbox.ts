import type { SessionRef } from '../session-ref';

/**
 * Where a received message's stanza came in: `socket` tells the session's sockets apart (the
 * time it opened, in ms, so a later socket's messages come after: in this process always, on a
 * later owner as far as the workers' clocks agree within a hand-over's time), and
 * `position` is its place on that socket (ArrivalOrder). The outbox hands messages on in this
 * order, not in the order they were stored: Baileys may emit a later stanza first.
 */
export interface ArrivalKey {
  socket: number;
  position: number;
}

/**
 * Live arrivals stored while their socket's offline backlog was still coming in (ArrivalOrder):
 * they are read among that backlog by the server's time, or, when their socket ended first
 * (WhatsApp hands what it still queued for the device to a later socket), among the latest
 * socket's backlog (each
 * position in their range, and in a backlog's, is a server second times `perSecond` plus an
 * order): after that second's backlog stanzas.
 */
export interface PendingArrivals {
  /** Their positions: [from, until). */
  from: number;
  until: number;
  perSecond: number;
}

/** One message waiting in the outbox. */
export interface OutboxEntry {
  messageId: string;
  value: Buffer;
  arrival: ArrivalKey;
  /**
   * Set on an entry that holds the place of a message asked for again (`awaitResend`): until when
   * (epoch ms) the copy sent back is awaited. Its value is a sealed placeholder.
   */
  resendAwaitedUntil?: number;
}

/**
 * Where the driver keeps received messages until the event stream has them: `inbound_outbox`
 * through InboundOutboxRepository of @jumbe/persistence. Values arrive sealed.
 */
export interface InboundOutbox {
  /**
   * `quote`: the sealed copy a reply may quote (QuoteArchive.sealReceived), stored with the
   * message in the same write (`received_messages`). `arrival`: where the message comes in the
   * session's order; without it, before every message stored with one (in the order stored).
   */
  add(ref: SessionRef, messageId: string, value: Buffer, quote?: Buffer, arrival?: ArrivalKey): Promise<void>;
  /**
   * Holds `arrival`'s place, until `until` (epoch ms), for a message Baileys asked its sender for
   * again: the copy sent back, stored under the same id (`add`), takes the entry and its place,
   * on whichever socket or owner it arrives. Nothing changes if the id is here already.
   */
  awaitResend(
    ref: SessionRef,
    messageId: string,
    value: Buffer,
    arrival: ArrivalKey,
    until: number,
  ): Promise<void>;
  /** Removes held places (`awaitResend`) no longer awaited; an entry a copy took stays. */
  forgetAwaited(ref: SessionRef, messageIds: readonly string[]): Promise<void>;
  /**
   * The first `limit` waiting messages in arrival order (ties: in the order stored). With
   * `carriedTo`, the current socket: its own and earlier sockets' `pending` arrivals are read
   * among its backlog by their second (`readAt`).
   */
  oldest(
    ref: SessionRef,
    limit: number,
    carriedTo?: number,
    pending?: PendingArrivals,
  ): Promise<OutboxEntry[]>;
  /**
   * `socket`'s backlog is complete: its own and earlier sockets' pending arrivals settle where
   * `oldest` reads them on it (a later socket does not move them again).
   */
  settlePending(ref: SessionRef, socket: number, pending: PendingArrivals): Promise<void>;
  /** Removes delivered messages (a batch at a time: one write, not one per message). */
  remove(ref: SessionRef, messageIds: readonly string[]): Promise<void>;
}

/** Where a message stored without an arrival key comes: first (what a release before keys stored). */
const UNKEYED: ArrivalKey = { socket: 0, position: 0 };

/** Whether `a` comes before `b` in a session's arrival order. */
export function arrivesBefore(a: ArrivalKey, b: ArrivalKey): boolean {
  return a.socket < b.socket || (a.socket === b.socket && a.position < b.position);
}

/**
 * Where `key` is read: a pending arrival of socket `carriedTo` or an earlier one, on `carriedTo`
 * after its backlog stanzas of the arrival's second (InboundOutbox.oldest).
 */
export function readAt(key: ArrivalKey, carriedTo?: number, pending?: PendingArrivals): ArrivalKey {
  if (carriedTo === undefined || pending === undefined || key.socket > carriedTo) return key;
  if (key.position < pending.from || key.position >= pending.until) return key;
  const second = Math.floor((key.position - pending.from) / pending.perSecond);
  return { socket: carriedTo, position: second * pending.perSecond + pending.perSecond - 1 };
}

/**
 * The outbox of a driver without a database (tests, tools): in this process only, so it loses
 * what a crash interrupts. Never bounded by dropping: a message leaves only once delivered.
 */
export class ProcessInboundOutbox implements InboundOutbox {
  private readonly entries = new Map<string, Map<string, OutboxEntry>>();

  /** Quotes are not kept here: without a database, the session's memory of recent ones serves. */
  async add(
    ref: SessionRef,
    messageId: string,
    value: Buffer,
    _quote?: Buffer,
    arrival: ArrivalKey = UNKEYED,
  ): Promise<void> {
    const session = this.session(ref);
    const held = session.get(messageId);
    if (!held) session.set(messageId, { messageId, value, arrival });
    // A place held for it (asked for again): the copy takes it.
    else if (held.resendAwaitedUntil !== undefined)
      session.set(messageId, { messageId, value, arrival: held.arrival });
  }

  async awaitResend(
    ref: SessionRef,
    messageId: string,
    value: Buffer,
    arrival: ArrivalKey,
    until: number,
  ): Promise<void> {
    const session = this.session(ref);
    if (!session.has(messageId))
      session.set(messageId, { messageId, value, arrival, resendAwaitedUntil: until });
  }

  async forgetAwaited(ref: SessionRef, messageIds: readonly string[]): Promise<void> {
    const session = this.session(ref);
    for (const messageId of messageIds)
      if (session.get(messageId)?.resendAwaitedUntil !== undefined) session.delete(messageId);
  }

  async oldest(
    ref: SessionRef,
    limit: number,
    carriedTo?: number,
    pending?: PendingArrivals,
  ): Promise<OutboxEntry[]> {
    const order = (a: ArrivalKey, b: ArrivalKey) => (arrivesBefore(a, b) ? -1 : arrivesBefore(b, a) ? 1 : 0);
    // A stable sort: equal keys stay in the order stored.
    return [...this.session(ref).values()]
      .sort(
        (a, b) =>
          order(readAt(a.arrival, carriedTo, pending), readAt(b.arrival, carriedTo, pending)) ||
          order(a.arrival, b.arrival),
      )
      .slice(0, limit);
  }

  async settlePending(ref: SessionRef, socket: number, pending: PendingArrivals): Promise<void> {
    for (const entry of this.session(ref).values()) entry.arrival = readAt(entry.arrival, socket, pending);
  }

  async remove(ref: SessionRef, messageIds: readonly string[]): Promise<void> {
    const session = this.session(ref);
    for (const messageId of messageIds) session.delete(messageId);
  }

  private session(ref: SessionRef): Map<string, OutboxEntry> {
    const key = `${ref.accountId}/${ref.sessionId}`;
    let session = this.entries.get(key);
    if (!session) {
      session = new Map();
      this.entries.set(key, session);
    }
    return session;
  }
}
