import type { ArrivalKey, PendingArrivals } from './inbound-outbox';

/**
 * The order a socket's received messages are handed on in: the order their stanzas arrived.
 *
 * Baileys (7.0.0-rc14) processes the offline backlog in a queue of its own, one stanza after the
 * other, while a live stanza is processed at once (`messages-recv.js` processNode, and
 * `Utils/offline-node-processor.js`); and it awaits key-store work (the LID mapping, a session
 * move, every key read while PostgreSQL is slow) before it takes its message lock. So a message
 * a contact sent right after the device came back could be emitted before the one it sent while
 * the device was away (the fault schedule's `outOfOrder`, after every reconnect).
 *
 * Baileys receipts a message to WhatsApp before it emits it, so nothing is held in memory for the
 * order (a SIGKILL would lose it; WhatsApp does not send it again): each message stanza gets its
 * key as it arrives (`arrived`, from the raw connection, before Baileys has emitted anything for
 * it), the message is stored with that key as soon as Baileys emits it, and the outbox is handed
 * on in key order, as far as `publishable` allows: not past a stanza that arrived earlier and is
 * not stored yet (`settled`), unless it has waited `maxWaitMs` (a stanza that never becomes a
 * message: a status broadcast Baileys ignores, a failure).
 *
 * A live stanza that arrives while the socket's offline backlog is still coming in (WhatsApp
 * hands the backlog over in batches the device asks for, after `offline_preview`, and ends it
 * with `<ib><offline>`) goes among the backlog by the server's time of it (`t`): after the backlog
 * stanzas of its second, before later ones. A message sent now comes after the whole backlog (it
 * was sent later than anything queued for the device while it was away); one the server took
 * earlier and hands over live only now (the fault schedule's seed 57: taken behind a backlog on a
 * connection that went quiet, given to the next socket unmarked) comes before what the contact
 * sent after it. It is held until the backlog has passed its second or is complete, or has been
 * awaited `maxWaitMs` since the socket opened (or its first live stanza, if earlier).
 *
 * Such a live message is stored *pending* (a position in PENDING_ARRIVALS' range, carrying the
 * server's time of its stanza, `t`): when its socket ends before the backlog is complete (a
 * refusal, a version bump, a hand-over to another worker), WhatsApp hands what it still queued for
 * the device to a later socket, and the message is read there among that socket's backlog by the
 * server's time: after the backlog stanzas the server took up to its second, before the later
 * ones (those were sent while the device was away again), as on its own socket. Any owner tells
 * it from the row; a backlog position carries the server time too (the highest seen so far on the
 * socket, so the backlog keeps its arrival order). The message waits (`placesCarried`) until the backlog has
 * passed its second or is complete; once complete, it settles there for good (the outbox moves
 * it: InboundOutbox.settlePending).
 *
 * A message Baileys could not decrypt and asked its sender for again (a retry receipt: after a
 * socket ended between Baileys' key commit and its receipt, WhatsApp's second copy fails with
 * `old counter`) keeps its place (`awaitResend`): the copy the sender's phone sends back a round
 * trip later arrives with the same id and is stored with the first copy's key, and what arrived
 * after the first copy waits for it (the fault schedule's seed 1 saw the next group message
 * overtake it right after a Redis outage), `resendWaitMs` from the retry at most (a phone that is
 * offline answers much later: the session's later messages do not wait for it).
 */
export class ArrivalOrder {
  /** The socket's key part: later than any earlier socket's of this session. */
  readonly socket: number;
  private nextPosition = 0;
  /** Arrived and not stored yet, per part of the order, oldest first: id -> when it arrived. */
  private readonly awaitedBacklog = new Map<string, number>();
  private readonly awaitedLive = new Map<string, number>();
  private readonly keys = new Map<string, number>();
  /** Ids whose key was made up when Baileys emitted them (no stanza of theirs was seen here). */
  private readonly madeUp = new Set<string>();
  /** Awaited ids whose sender was asked for them again: until when they are waited for. */
  private readonly resendDeadlines = new Map<string, number>();
  private backlogComplete = false;
  /** Whether a live stanza came in while the backlog was still incomplete (it is held for it). */
  private liveWaiting = false;
  /** Since when the backlog is awaited: the socket's open, or its first live stanza if earlier. */
  private backlogAwaitedSince: number | undefined;
  /** The latest server time (s) of a backlog stanza so far, and of a pending live one. */
  private backlogSecond = 0;
  private pendingSecond = 0;
  private ended = false;
  /** Logged in (`opened`): until then what it stored is kept, not handed on. */
  private open = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    previousSocket: number,
    /** Called when more may be published than before (a wait ended, the backlog completed). */
    private readonly released: () => void,
    private readonly maxWaitMs: number,
    /** How long a message asked for again (a retry receipt) is waited for, from the retry. */
    private readonly resendWaitMs: number = maxWaitMs,
    /**
     * When the session's store (PostgreSQL) last failed (epoch ms; 0: never). No wait runs out
     * while it fails: a message whose decryption waits on a key write is still coming, and once
     * PostgreSQL is back every waiter resumes within seconds, in no particular order. Each wait
     * counts from its start or the store's last failure, whichever is later (the fault
     * schedule's seed 5: a 50 s outage outlasted the 30 s wait, and in every chat the first
     * message sent during it came out of Baileys last and was delivered after the others).
     */
    private readonly storeFailedAt: () => number = () => 0,
    /** Called once when the backlog is complete or no longer awaited (the carried ones settle). */
    private readonly backlogSettled: () => void = () => undefined,
  ) {
    this.socket = Math.max(Date.now(), previousSocket + 1);
  }

  /**
   * A message stanza arrived on the socket; `offline`: part of the backlog; `second`: the server's
   * time of it (its `t`; this machine's when it has none). One whose id is still awaited (a copy
   * sent again after a retry receipt) keeps the first copy's place.
   */
  arrived(id: string | undefined, offline: boolean, second = Math.floor(Date.now() / 1000)): void {
    if (!id || this.ended || this.keys.has(id)) return;
    const now = Date.now();
    const arrival = this.nextPosition++;
    const order = arrival % PER_SECOND;
    if (offline) {
      this.backlogSecond = Math.max(this.backlogSecond, second);
      this.keys.set(id, this.backlogSecond * PER_SECOND + order);
    } else if (!this.backlogComplete) {
      this.pendingSecond = Math.max(this.pendingSecond, second);
      this.keys.set(id, PENDING + this.pendingSecond * PER_SECOND + order);
      this.liveWaiting = true;
      this.backlogAwaitedSince ??= now;
    } else this.keys.set(id, LIVE + arrival);
    (offline ? this.awaitedBacklog : this.awaitedLive).set(id, now);
    this.schedule();
  }

  /**
   * The socket logged in: its backlog comes now, and is awaited `maxWaitMs` at most (what earlier
   * sockets left pending waits for it too).
   */
  opened(): void {
    if (this.ended) return;
    this.open = true;
    if (!this.backlogComplete) {
      this.backlogAwaitedSince ??= Date.now();
      this.schedule();
    }
    this.released();
  }

  /** The server's `<ib><offline>`: the backlog has all arrived. */
  backlogArrived(): void {
    if (this.backlogComplete || this.ended) return;
    this.completeBacklog();
    this.schedule();
    this.released();
  }

  /** Whether the backlog is complete, or no longer awaited (its wait ran out). */
  backlogDone(): boolean {
    if (!this.ended) this.expire(Date.now());
    return this.backlogComplete;
  }

  /**
   * Whether an earlier socket's pending arrival has its place here: the backlog is complete, or
   * has passed the second it arrived in (WhatsApp sends the backlog in the order it took it).
   */
  placesCarried(arrival: ArrivalKey): boolean {
    if (this.ended || arrival.socket >= this.socket || !isPending(arrival.position)) return false;
    return this.backlogDone() || this.backlogSecond > secondOf(arrival.position);
  }

  /**
   * Whether an earlier socket's pending arrival, placed here (`placesCarried`), may go now;
   * `awaitedAtRead`: what was awaited when the outbox was read (`awaitedNow`).
   */
  carriedPublishable(arrival: ArrivalKey, awaitedAtRead: ReadPlace = NOTHING_AWAITED): boolean {
    if (this.ended) return true;
    this.expire(Date.now());
    // On a tie, an earlier socket's goes first (InboundOutbox.oldest orders by socket next).
    return carriedPosition(arrival.position) <= earliest(awaitedAtRead, this.firstAwaited()).read;
  }

  /**
   * The key Baileys' message `id` is stored with: its stanza's; one not from a stanza seen here (a
   * resent placeholder, a message Baileys made up) counts as a live arrival now.
   */
  keyOf(id: string | undefined): ArrivalKey {
    const known = id === undefined ? undefined : this.keys.get(id);
    if (known !== undefined || id === undefined || this.ended)
      return { socket: this.socket, position: known ?? LIVE + this.nextPosition++ };
    const position = LIVE + this.nextPosition++;
    this.keys.set(id, position);
    this.madeUp.add(id);
    // Awaited until stored like any arrival, but not held for the backlog (as before it: at once).
    this.awaitedLive.set(id, Date.now());
    this.schedule();
    return { socket: this.socket, position };
  }

  /**
   * The message `id` is stored, or will never be (skipped): later ones need not wait for it. Not
   * `released`: the caller kicks delivery once per stored batch (one outbox read per batch).
   */
  settled(id: string | undefined): void {
    if (id === undefined) return;
    this.keys.delete(id);
    this.madeUp.delete(id);
    this.resendDeadlines.delete(id);
    if (this.awaitedBacklog.delete(id) || this.awaitedLive.delete(id)) this.schedule();
  }

  /**
   * Baileys could not decrypt message `id` and asked its sender for it again: it stays awaited,
   * its key kept for the copy that comes back (stored with it, then `settled`). A stub whose key
   * was made up (its stanza not seen here, or seen and settled before: the copy sent back was
   * stored first) is settled; one no longer awaited (`maxWaitMs` passed) stays so. True when it is
   * awaited: its place is worth holding beyond this socket (InboundInbox.awaitResend).
   */
  awaitResend(id: string | undefined): boolean {
    if (id === undefined || !this.keys.has(id)) return false;
    if (this.madeUp.has(id)) {
      this.settled(id);
      return false;
    }
    // The first retry's deadline stands: Baileys asks up to 5 times, each failure a new stub.
    if (!this.resendDeadlines.has(id)) this.resendDeadlines.set(id, Date.now() + this.resendWaitMs);
    this.schedule();
    return true;
  }

  /**
   * The first place awaited now: taken as a read of the outbox starts, and passed to `publishable`
   * for what the read returns. A message stored (and `settled`) while the read was under way is
   * not in it, and what the read returned from after its place waits for the next read: judged
   * against the present alone, it would overtake it.
   */
  awaitedNow(): ReadPlace {
    if (this.ended) return NOTHING_AWAITED;
    this.expire(Date.now());
    return this.firstAwaited();
  }

  /**
   * Whether a stored message with this key may be handed on now (`awaitedAtRead`: as
   * `carriedPublishable`). Not before the socket is logged in: Baileys emits what arrives between
   * the server's `<success>` and its own `open` (it awaits round trips in between), and the
   * session's `connected` comes first, as it did while Baileys held those messages in its buffer
   * (a customer answering one must find the session connected).
   */
  publishable(arrival: ArrivalKey, awaitedAtRead: ReadPlace = NOTHING_AWAITED): boolean {
    // Another socket's (an earlier one's, or a previous owner's): nothing of it is awaited here.
    if (this.ended || arrival.socket !== this.socket) return true;
    if (!this.open) return false;
    this.expire(Date.now());
    const { position } = arrival;
    const awaited = earliest(awaitedAtRead, this.firstAwaited());
    if (!isPending(position)) return before({ read: position, position }, awaited);
    // Its own live arrival before the backlog completed: once the backlog has passed its second.
    if (!this.backlogComplete && this.backlogSecond <= secondOf(position)) return false;
    return before({ read: carriedPosition(position), position }, awaited);
  }

  /** The socket is let go: nothing more is awaited (what it stored is handed on in key order). */
  end(): void {
    this.ended = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.awaitedBacklog.clear();
    this.awaitedLive.clear();
    this.keys.clear();
    this.madeUp.clear();
    this.resendDeadlines.clear();
  }

  /**
   * The place (where it is read: ReadPlace) nothing at or after may be handed on yet: the first
   * arrival not stored yet, and, while live stanzas wait for an incomplete backlog, every live
   * one after it.
   */
  private firstAwaited(): ReadPlace {
    let first = NOTHING_AWAITED;
    const consider = (place: ReadPlace) => {
      if (before(place, first)) first = place;
    };
    const backlog = firstKey(this.awaitedBacklog);
    if (backlog !== undefined) consider(readPlace(this.keys.get(backlog) ?? 0));
    // Live ones are few at a time; pending and made-up keys interleave, so each is looked at.
    for (const id of this.awaitedLive.keys()) consider(readPlace(this.keys.get(id) ?? LIVE));
    if (!this.backlogComplete && this.liveWaiting) consider({ read: PENDING, position: PENDING });
    return first;
  }

  /**
   * Stops waiting for what has been awaited `maxWaitMs`, or asked for again `resendWaitMs` ago; a
   * backlog that never ends counts as ended.
   */
  private expire(now: number): void {
    const failedAt = this.storeFailedAt();
    for (const [id, deadline] of this.resendDeadlines)
      if (Math.max(deadline, failedAt + this.resendWaitMs) <= now) {
        this.awaitedBacklog.delete(id);
        this.awaitedLive.delete(id);
        this.keys.delete(id);
        this.resendDeadlines.delete(id);
      }
    for (const awaited of [this.awaitedBacklog, this.awaitedLive])
      for (const [id, since] of awaited) {
        if (now - Math.max(since, failedAt) < this.maxWaitMs) break;
        awaited.delete(id);
        this.keys.delete(id);
        this.madeUp.delete(id);
        this.resendDeadlines.delete(id);
      }
    if (
      !this.backlogComplete &&
      this.backlogAwaitedSince !== undefined &&
      now - Math.max(this.backlogAwaitedSince, failedAt) >= this.maxWaitMs
    )
      this.completeBacklog();
  }

  private completeBacklog(): void {
    // What arrived pending and is not stored yet is stored where its place is now for good (as the
    // outbox settles the stored ones): a later socket must not read it among its own backlog.
    for (const [id, position] of this.keys)
      if (isPending(position)) this.keys.set(id, carriedPosition(position));
    this.backlogComplete = true;
    this.liveWaiting = false;
    this.backlogAwaitedSince = undefined;
    this.backlogSettled();
  }

  /** While something is awaited, looks again (and releases what waited) when its wait is over. */
  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const failedAt = this.storeFailedAt();
    const deadlines = [
      this.awaitedBacklog.values().next().value,
      this.awaitedLive.values().next().value,
      this.backlogComplete ? undefined : this.backlogAwaitedSince,
    ]
      .filter((at): at is number => at !== undefined)
      .map((since) => Math.max(since, failedAt) + this.maxWaitMs)
      .concat([...this.resendDeadlines.values()].map((at) => Math.max(at, failedAt + this.resendWaitMs)));
    if (this.ended || deadlines.length === 0) return;
    const wait = Math.max(0, Math.min(...deadlines) - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.expire(Date.now());
      this.schedule();
      this.released();
    }, wait).unref();
  }
}

/**
 * A socket's positions. Backlog arrivals: the server second (the highest so far) times PER_SECOND
 * plus their order, below 2^47 until 2038 (seconds below 2^31). Live arrivals that came before
 * the backlog completed: PENDING plus the same for them. Live arrivals after: LIVE plus their
 * order. Rows stored before pending arrivals existed (backlog from 0, live from 2^40) never fall
 * in the pending range, and are compared only with rows of their own socket.
 */
const PER_SECOND = 2 ** 16;
const PENDING = 2 ** 48;
const LIVE = 2 ** 50;

/** What the outbox needs to know of pending arrivals (read, and settled, by any owner). */
export const PENDING_ARRIVALS: PendingArrivals = { from: PENDING, until: LIVE, perSecond: PER_SECOND };

/** Whether a stored position is a live arrival whose socket's backlog had not completed. */
export function isPending(position: number): boolean {
  return position >= PENDING && position < LIVE;
}

/** The server second a pending arrival came in. */
function secondOf(position: number): number {
  return Math.floor((position - PENDING) / PER_SECOND);
}

/** Where a pending arrival is read on a later socket: after its backlog stanzas of that second. */
function carriedPosition(position: number): number {
  return secondOf(position) * PER_SECOND + PER_SECOND - 1;
}

/**
 * Where a position of this socket is read (`read`: a pending arrival among the backlog by its
 * second), then its own position (ties: InboundOutbox.oldest orders by position next).
 */
export interface ReadPlace {
  read: number;
  position: number;
}

const NOTHING_AWAITED: ReadPlace = { read: Infinity, position: Infinity };

function readPlace(position: number): ReadPlace {
  return { read: isPending(position) ? carriedPosition(position) : position, position };
}

function before(a: ReadPlace, b: ReadPlace): boolean {
  return a.read < b.read || (a.read === b.read && a.position < b.position);
}

function earliest(a: ReadPlace, b: ReadPlace): ReadPlace {
  return before(a, b) ? a : b;
}

function firstKey(map: Map<string, number>): string | undefined {
  return map.keys().next().value;
}
