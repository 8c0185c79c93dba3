import type { InboundNetworkMessage } from '@jumbe/domain';
import { isJidStatusBroadcast, type proto, type WAMessage } from '@whiskeysockets/baileys';
import { InboundRedelivery } from '../inbound-redelivery';
import { ArrivalOrder, isPending, PENDING_ARRIVALS, type ReadPlace } from './arrival-order';
import type { ArrivalKey } from './inbound-outbox';
import type { OutboxReading } from './inbound-inbox';
import { incomingCallOf } from './call-offer';
import { resolveSenderPhoneJid, toInboundMessage } from './inbound-mapper';
import { phoneDigits } from './phone-digits';
import { decryptedVote, pollUpdateOf } from './poll-votes';
import { resendAsked, undecryptableReason } from './undecryptable';
import type { WhatsAppSessionContext } from './whatsapp-session-context';
import type { WhatsAppSocket } from './whatsapp-socket';

/** What receiving needs to know of the session's connection. */
export interface ReceivingConnection {
  /** Whether `socket` is still the session's socket (an old one's events are ignored). */
  isCurrent(socket: WhatsAppSocket): boolean;
  /** The connection is closing or closed: no more retries for ever. */
  hasEnded(): boolean;
  /** The one `disconnected` has been (or is being) emitted. */
  hasFinished(): boolean;
}

type ReceiverContext = Pick<
  WhatsAppSessionContext,
  'ref' | 'events' | 'settings' | 'auth' | 'memory' | 'sent' | 'inbox' | 'quotes' | 'media' | 'logger'
>;

/**
 * Takes what one session receives (messages, poll votes, calls): every message is stored in the
 * durable outbox as soon as Baileys emits it, keyed by where its stanza arrived, and then handed
 * to the session's owner (`onInbound`) in that order by delivery rounds that retry until it is
 * taken (ArrivalOrder says how far they may go).
 */
export class SessionReceiver {
  /** Received batches being written to the outbox, in arrival order. */
  private receiving: Promise<void> = Promise.resolve();
  /** Once the session is closing: when storing a received message stops being retried. */
  private storeGiveUpAt: number | null = null;
  private readonly redelivery: InboundRedelivery;
  /** The current socket's arrival order: its messages' keys, and how far delivery may go. */
  private arrivals: ArrivalOrder | null = null;
  /** The key part of the last socket listened to: the next one's is later. */
  private lastSocket = 0;
  /** When storing a received message in the outbox last failed (epoch ms; 0: never). */
  private storeFailedAt = 0;
  /**
   * Since when pending arrivals of an earlier socket (one that ended before its backlog was
   * complete, or a previous owner's) may wait without a socket whose backlog completed: set when
   * this owner starts and when a socket ends with its backlog incomplete, cleared when a socket's
   * backlog is complete. They wait CARRY_WAIT_MS at most.
   */
  private pendingSince: number | undefined = Date.now();
  /** Looks again once a wait here is over (the earliest asked for: `lookAgainIn`), and when. */
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Infinity;

  constructor(
    private readonly context: ReceiverContext,
    private readonly connection: ReceivingConnection,
  ) {
    this.redelivery = new InboundRedelivery(() => this.deliverRound(), context.settings.redeliveryIntervalMs);
  }

  /** Takes the messages and calls `socket` receives. */
  listenTo(socket: WhatsAppSocket): void {
    const arrivals = new ArrivalOrder(
      this.lastSocket,
      () => void this.redelivery.kick(),
      ARRIVAL_WAIT_MS,
      RESEND_WAIT_MS,
      () => Math.max(this.context.auth.lastUnreachableAt, this.storeFailedAt),
      () => this.backlogSettled(arrivals),
    );
    this.arrivals = arrivals;
    this.lastSocket = arrivals.socket;
    // Logged in: its backlog comes now, and is awaited ARRIVAL_WAIT_MS at most.
    socket.ev.on('connection.update', (update) => {
      if (update.connection !== 'open') return;
      this.context.logger.debug({ socket: arrivals.socket }, 'socket open: its backlog is awaited');
      arrivals.opened();
    });
    // Registered after Baileys' own listener: noted before Baileys has emitted anything for it.
    socket.ws?.on('CB:message', (node) => {
      // Before Baileys decrypts it (it awaits first): a stanza seen again is told from a replay.
      this.context.memory.decrypted.noteStanza(node);
      // A stanza already handed on (WhatsApp sends again what a dropped socket never receipted)
      // may never become a message again: not waited for.
      const id = node.attrs.id;
      if (isJidStatusBroadcast(node.attrs.from ?? '') || (id && this.context.memory.delivered.has(id)))
        return;
      const second = Number(node.attrs.t);
      arrivals.arrived(id, !!node.attrs.offline, Number.isFinite(second) && second > 0 ? second : undefined);
    });
    socket.ws?.on('CB:ib,,offline', () => {
      this.context.logger.debug({ socket: arrivals.socket }, 'backlog complete');
      arrivals.backlogArrived();
    });
    socket.ev.on('messages.upsert', ({ messages, type }) => {
      if (!this.connection.isCurrent(socket) || (type !== 'notify' && type !== 'append')) return;
      // Keyed now, in the order emitted (a message no stanza announced counts as arriving now).
      const keyed = messages.map((raw) => ({ raw, arrival: arrivals.keyOf(raw.key?.id ?? undefined) }));
      void this.receive(socket, arrivals, keyed);
    });
    socket.ev.on('call', (calls) => {
      if (!this.connection.isCurrent(socket)) return;
      for (const call of calls) {
        const offer = incomingCallOf(call);
        if (offer) this.context.events.onCall?.(offer);
      }
    });
  }

  /**
   * The socket is let go: what it stored (its buffer drained before this) is no longer held for
   * arrivals it awaited, and goes on in arrival order.
   */
  letGo(): void {
    const arrivals = this.arrivals;
    this.context.logger.debug({ socket: arrivals?.socket }, 'socket let go');
    // What arrived live before its backlog waits for the next socket's (WhatsApp hands it on).
    if (arrivals && !arrivals.backlogDone()) this.pendingSince ??= Date.now();
    arrivals?.end();
    this.arrivals = null;
    void this.redelivery.kick();
  }

  /** Hands on what the outbox holds (after a (re)connect, or what a previous owner left). */
  deliverStored(): void {
    void this.redelivery.kick();
  }

  /** Resolves once every batch received so far is stored (or given up on). */
  stored(): Promise<void> {
    return this.receiving;
  }

  /** No more delivery rounds (the session ended). */
  stop(): void {
    this.redelivery.stop();
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
  }

  /**
   * Baileys acknowledges a message to WhatsApp before it emits it, so the driver cannot hold the
   * network's ack back. Instead each message is written to the durable outbox before anything
   * else happens to it, with its arrival key, batches one after another as emitted (`receiving`);
   * a write that fails is retried while the session lives, holding the later ones back.
   */
  private receive(
    socket: WhatsAppSocket,
    arrivals: ArrivalOrder,
    messages: { raw: WAMessage; arrival: ArrivalKey }[],
  ): Promise<void> {
    this.receiving = this.receiving.then(() => this.keepAll(socket, arrivals, messages));
    return this.receiving;
  }

  private async keepAll(
    socket: WhatsAppSocket,
    arrivals: ArrivalOrder,
    messages: { raw: WAMessage; arrival: ArrivalKey }[],
  ): Promise<void> {
    for (const { raw, arrival } of messages) {
      const id = raw.key?.id ?? undefined;
      let awaitingResend = false;
      try {
        awaitingResend = await this.keep(socket, raw, arrival);
      } finally {
        // Message ids and keys only (never content): a fault schedule's order is read from these.
        this.context.logger.debug({ messageId: id, ...arrival, awaitingResend }, 'inbound stored');
        // Stored (or never to be): what arrived after it need not wait for it any more.
        if (!awaitingResend) arrivals.settled(id);
      }
      // Unreadable, and asked for again: what arrived after it waits for the copy sent back, here
      // and, through the place held in the outbox, on a later socket or owner should this one end.
      if (awaitingResend && arrivals.awaitResend(id) && id !== undefined)
        await this.keepPlaceForResend(id, arrival);
    }
    // One round per stored batch: it also hands on what this batch's messages were holding back.
    void this.redelivery.kick();
  }

  /**
   * One emitted message into the outbox (a poll vote straight on; what cannot be read skipped).
   * True for one that could not be decrypted and will come again (Baileys asked its sender).
   */
  private async keep(socket: WhatsAppSocket, raw: WAMessage, arrival: ArrivalKey): Promise<boolean> {
    const id = raw.key?.id;
    if (!id || this.context.memory.delivered.has(id)) return false;
    if (this.undecryptable(raw, id)) return resendAsked(raw);
    const pollUpdate = pollUpdateOf(raw);
    if (pollUpdate) {
      await this.receiveVote(socket, raw, pollUpdate);
      return false;
    }
    let message;
    try {
      const sender = await resolveSenderPhoneJid(raw, (lid) =>
        socket.signalRepository.lidMapping.getPNForLID(lid),
      );
      message = toInboundMessage(raw, sender);
    } catch (error) {
      this.context.logger.warn({ err: error, messageId: id }, 'could not read an inbound message; skipped');
      return false;
    }
    if (message === null) return false;
    await this.keepUntilStored(message, this.context.quotes.sealReceived(raw, message), arrival);
    // Inbound media hook, after the message is durable and before it is settled (until then no
    // round hands it on), so a bot that fetches the file as soon as it hears of it finds it.
    if (message.media) await this.context.media.remember(this.context.ref, raw);
    return false;
  }

  /**
   * A vote on a poll: Baileys hands it on encrypted (its own decryption is switched off), so it is
   * opened here with the secret of the poll's creation message, which this session kept when it
   * sent the poll. A vote on a poll it has no record of is dropped.
   */
  private async receiveVote(
    socket: WhatsAppSocket,
    raw: WAMessage,
    update: proto.Message.IPollUpdateMessage,
  ): Promise<void> {
    const pollId = update.pollCreationMessageKey?.id;
    const creation = pollId ? await this.context.sent.find(pollId) : undefined;
    if (!creation) {
      this.context.logger.info(
        { messageId: raw.key.id, pollId },
        'a vote on a poll this session does not keep; dropped',
      );
      return;
    }
    const key = raw.key;
    const inGroup = (key.remoteJid ?? '').endsWith('@g.us');
    let phoneJid: string | null = null;
    try {
      phoneJid = await resolveSenderPhoneJid(raw, (lid) =>
        socket.signalRepository.lidMapping.getPNForLID(lid),
      );
    } catch {
      // Unresolved: the voter is named by the id WhatsApp gave.
    }
    const sender = inGroup ? key.participant : key.remoteJid;
    phoneJid ??= sender?.endsWith('@s.whatsapp.net') ? sender : null;
    const me = socket.user ?? this.context.auth.state.creds.me;
    const vote = decryptedVote(
      raw,
      update,
      creation,
      {
        creators: [me?.id, me?.lid],
        voters: [sender, inGroup ? key.participantAlt : key.remoteJidAlt, phoneJid],
      },
      phoneJid ? phoneDigits(phoneJid) : null,
    );
    if (!vote) {
      this.context.logger.warn({ messageId: key.id, pollId }, 'a poll vote could not be decrypted; dropped');
      return;
    }
    this.context.memory.delivered.set(vote.id, true);
    this.context.events.onPollVote?.(vote);
  }

  /** Counts and logs (without content or sender) a message Baileys could not decrypt. */
  private undecryptable(raw: WAMessage, messageId: string): boolean {
    const reason = undecryptableReason(raw);
    if (reason === null) return false;
    this.context.settings.onUndecryptable?.();
    this.context.logger.warn(
      { messageId, reason },
      'a received message could not be decrypted (Baileys asked the sender to retry); not delivered',
    );
    return true;
  }

  /** Holds a message's place in the outbox while its sender is asked for it again. */
  private async keepPlaceForResend(id: string, arrival: ArrivalKey): Promise<void> {
    const until = Date.now() + RESEND_WAIT_MS;
    await this.untilStored(
      () => this.context.inbox.awaitResend(id, arrival, until),
      { messageId: id },
      'the place of a message asked for again',
    );
  }

  private async keepUntilStored(
    message: InboundNetworkMessage,
    quote: Buffer | undefined,
    arrival: ArrivalKey,
  ): Promise<void> {
    await this.untilStored(
      () => this.context.inbox.keep(message, quote, arrival),
      { messageId: message.id },
      'inbound message',
    );
  }

  /**
   * `arrivals`' backlog is complete (or no longer awaited): earlier sockets' pending arrivals
   * stored so far settle on it, where they are read now, after every batch stored before (the
   * same queue): should this socket end too, the next one does not move them past its backlog.
   */
  private backlogSettled(arrivals: ArrivalOrder): void {
    // A wake-up still set for the pending wait only costs one round.
    if (this.arrivals === arrivals) this.pendingSince = undefined;
    this.receiving = this.receiving.then(async () => {
      await this.untilStored(
        () => this.context.inbox.settlePending(arrivals.socket, PENDING_ARRIVALS),
        { socket: arrivals.socket },
        'pending arrivals',
      );
      void this.redelivery.kick();
    });
  }

  /** Runs an outbox write until it succeeds while the session lives; closing, for a grace only. */
  private async untilStored(write: () => Promise<void>, about: object, what: string): Promise<void> {
    for (;;) {
      try {
        return await write();
      } catch (error) {
        this.storeFailedAt = Date.now();
        // Closing (`close()` waits for this before it finishes): retried for a grace, not forever,
        // or a close during a PostgreSQL outage never returns and the shard never moves (issue 28).
        if (this.connection.hasEnded()) this.storeGiveUpAt ??= Date.now() + CLOSE_STORE_GRACE_MS;
        if (
          this.connection.hasFinished() ||
          (this.storeGiveUpAt !== null && Date.now() >= this.storeGiveUpAt)
        ) {
          this.context.logger.error({ err: error, ...about }, `${what} could not be stored`);
          return;
        }
        this.context.logger.warn({ err: error, ...about }, `${what} not stored yet; retrying`);
        await new Promise((resolve) => setTimeout(resolve, this.context.settings.redeliveryIntervalMs));
      }
    }
  }

  /** False when a message is still waiting and needs a retry. */
  private async deliverRound(): Promise<boolean> {
    try {
      return await this.context.inbox.deliver(
        (message) => this.context.events.onInbound(message),
        () => this.connection.hasEnded(),
        () => this.reading(),
      );
    } catch (error) {
      this.context.logger.warn({ err: error }, 'inbound delivery failed; retrying');
      return false;
    }
  }

  /** One read of the outbox: on the current socket, judged by what it awaits as the read starts. */
  private reading(): OutboxReading {
    const current = this.arrivals;
    const awaitedAtRead = current?.awaitedNow();
    return {
      publishable: (arrival, resendAwaitedUntil) =>
        resendAwaitedUntil === undefined
          ? this.publishable(arrival, awaitedAtRead)
          : this.resendWaitOver(resendAwaitedUntil),
      ...(current ? { carriedTo: { socket: current.socket, pending: PENDING_ARRIVALS } } : {}),
    };
  }

  /**
   * Whether a stored message may be handed on now. An earlier socket's pending arrival (it came
   * live before its socket's backlog was complete, and that socket ended) is read among the
   * current socket's backlog by the server's time, and waits until that backlog has passed its
   * second (ArrivalOrder: ARRIVAL_WAIT_MS from the socket's open at most); while no socket places
   * it, CARRY_WAIT_MS at most.
   */
  private publishable(arrival: ArrivalKey, awaitedAtRead?: ReadPlace): boolean {
    const current = this.arrivals;
    if (!isPending(arrival.position) || (current !== null && arrival.socket >= current.socket))
      return current?.publishable(arrival, awaitedAtRead) ?? true;
    if (current?.placesCarried(arrival)) return current.carriedPublishable(arrival, awaitedAtRead);
    return this.pendingWaitOver();
  }

  /**
   * Whether a message asked for again (its place held in the outbox until `until`) is no longer
   * awaited; as every wait here, it does not run out while the session's store fails.
   */
  private resendWaitOver(until: number): boolean {
    const failedAt = Math.max(this.context.auth.lastUnreachableAt, this.storeFailedAt);
    const left = Math.max(until, failedAt + RESEND_WAIT_MS) - Date.now();
    if (left <= 0) return true;
    this.lookAgainIn(left);
    return false;
  }

  /** Whether the pending arrivals of earlier sockets have waited CARRY_WAIT_MS (or need not). */
  private pendingWaitOver(): boolean {
    const since = this.pendingSince;
    if (since === undefined || this.connection.hasEnded()) return true;
    const left = since + CARRY_WAIT_MS - Date.now();
    if (left <= 0) return true;
    this.lookAgainIn(left);
    return false;
  }

  /** A delivery round once `ms` have passed, or earlier if an earlier one is due already. */
  private lookAgainIn(ms: number): void {
    const at = Date.now() + ms;
    if (this.wakeTimer !== undefined && this.wakeAt <= at) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      void this.redelivery.kick();
    }, ms).unref();
  }
}

/**
 * How long a received message waits for one that arrived before it and has not come out of
 * Baileys yet (its backlog queue, a slow key store); a stanza that never becomes a message holds
 * the later ones this long at most.
 */
const ARRIVAL_WAIT_MS = 30_000;

/**
 * How long the messages that arrived after an undecryptable one wait for its sender's phone to
 * send it again once Baileys asked (a retry receipt): a phone online answers within a round trip
 * (0.4 s in the fault schedule on a loaded machine); one offline answers when it comes back, and
 * the session's later messages are not held that long (that message then arrives after them).
 */
const RESEND_WAIT_MS = 10_000;

/**
 * How long a live message that arrived before its socket's backlog, the socket then ending first,
 * waits while no later socket's backlog completes: WhatsApp queues the rest of the backlog for the
 * next socket, which may open only after a WhatsApp incident (the fault schedule's version bumps
 * last up to 2 minutes, refusal storms up to 5, and the refusal backoff adds up to 40 s). A
 * session down longer is reported down; its received messages are not held back longer.
 */
const CARRY_WAIT_MS = 5 * 60_000;

/** How long a closing session still retries storing a received message (PostgreSQL down). */
const CLOSE_STORE_GRACE_MS = 10_000;
