import type { OutboundMessage } from '@jumbe/contracts';
import { applyLinkChange, type LinkFacts, recipientJid, type SessionView, sessionView } from '@jumbe/domain';
import type {
  ChatPresence,
  ContactProfile,
  IncomingCall,
  OwnProfile,
  ProfileUpdate,
  LinkEvent,
  NetworkGroups,
  NetworkDriver,
  NetworkSession,
  NumberLookup,
  SendOptions,
  SentKey,
  SessionRef,
} from '@jumbe/network';
import type { Logger } from 'pino';
import type { InboundRelay } from './inbound-relay';
import type { CredentialStore } from './ports/credential-store';
import type { SessionStore } from './ports/session-store';
import type { StatusRelay } from './status-relay';

/** How a connection is opened: for a new login, or to restore a session that was linked. */
export interface OpenOptions {
  linked: boolean;
  /** Before each reconnect the driver asks whether this worker still owns the shard. */
  stillOwned: () => boolean;
  /**
   * A restore of a session stored as `connected`: its first `connecting` is held back this long
   * (ms) and forgotten if the session is connected again, with the same number, by then.
   */
  quietReconnectMs?: number;
}

/** A restored session's quiet window (see `holdBack`). */
interface HeldBack {
  /** The facts stored when the session was restored: reconnecting to them is no change. */
  stored: LinkFacts;
  quietMs: number;
  /** Set once its `connecting` is held back: records it when the window ends. */
  timer: NodeJS.Timeout | null;
}

export interface LiveSessionDeps {
  sessions: SessionStore;
  credentials: CredentialStore;
  inbound: InboundRelay;
  statuses: StatusRelay;
  logger: Logger;
  /** A call rang on the session (CallAnswerer); absent → calls are ignored. */
  onCall?: (ref: SessionRef, call: IncomingCall) => void;
}

/**
 * One session connected on this worker: its network connection, its current state, and the
 * fenced writes of every state change to PostgreSQL (in order, one at a time).
 */
export class LiveSession {
  private network: NetworkSession | null = null;
  private qr = '';
  private writes: Promise<void> = Promise.resolve();
  /** Set while we unlink a session whose number is already connected elsewhere. */
  private refusingDuplicate = false;
  /** The facts last announced as `session.status`: a QR refresh or a repeated end is no change. */
  private announced: LinkFacts;
  /** Set while a restored session's reconnect may still turn out to be no change at all. */
  private heldBack: HeldBack | null = null;
  /** Called when the session leaves `connecting` (or ends): see `untilNotConnecting`. */
  private readonly leftConnecting = new Set<() => void>();
  /** The planned close under way: a second call (a lost shard, then its drop) waits for the same. */
  private closing: Promise<void> | null = null;

  constructor(
    readonly ref: SessionRef,
    readonly shard: number,
    private readonly token: number,
    private facts: LinkFacts,
    private updatedAt: Date,
    private readonly deps: LiveSessionDeps,
    /** Called once when the connection ends for good, so the host forgets this session. */
    private readonly onEnded: (session: LiveSession) => void,
    /**
     * Asked when the connection ends `connection_replaced`: true if the host reopens the session
     * instead (the other socket was a stale worker's), and the end is not recorded.
     */
    private readonly onReplaced: (session: LiveSession) => boolean = () => false,
  ) {
    this.announced = facts;
  }

  async open(driver: NetworkDriver, options: OpenOptions): Promise<void> {
    const { linked, stillOwned, quietReconnectMs } = options;
    if (quietReconnectMs !== undefined && this.facts.state === 'connected') {
      this.heldBack = { stored: this.facts, quietMs: quietReconnectMs, timer: null };
    }
    this.network = await driver.open(
      this.ref,
      {
        onLink: (event) => this.onLink(event),
        onInbound: (message) => this.deps.inbound.relay(this.ref, message),
        onCall: (call) => this.deps.onCall?.(this.ref, call),
        onGroupEvent: (change) => {
          this.deps.statuses
            .groupChanged(this.ref, change)
            .catch((error: unknown) =>
              this.deps.logger.error({ err: error, ...this.ref }, 'a group event could not be published'),
            );
        },
        onPollVote: (vote) => {
          this.deps.statuses
            .pollVoted(this.ref, vote)
            .catch((error: unknown) =>
              this.deps.logger.error({ err: error, ...this.ref }, 'a poll vote could not be published'),
            );
        },
        onMessageStatus: (report) => {
          this.deps.statuses
            .messageStatus(this.ref, report)
            .catch((error: unknown) =>
              this.deps.logger.error({ err: error, ...this.ref }, 'message.status could not be published'),
            );
        },
      },
      { linked, token: this.token, stillOwned },
    );
  }

  get state(): LinkFacts['state'] {
    return this.facts.state;
  }

  view(): SessionView {
    return sessionView({ sessionId: this.ref.sessionId, ...this.facts, updatedAt: this.updatedAt });
  }

  qrView(): { sessionId: string; state: LinkFacts['state']; qr: string } {
    return {
      sessionId: this.ref.sessionId,
      state: this.facts.state,
      qr: this.facts.state === 'qr_ready' ? this.qr : '',
    };
  }

  /** Resolves when every state change seen so far is written. */
  settled(): Promise<void> {
    return this.writes;
  }

  /** Resolves once the session is anything but `connecting` (reconnected, or ended), or after `timeoutMs`. */
  untilNotConnecting(timeoutMs: number): Promise<void> {
    if (this.facts.state !== 'connecting') return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.leftConnecting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.leftConnecting.add(done);
    });
  }

  requestPairingCode(phoneNumber: string): Promise<string> {
    return this.connection().requestPairingCode(phoneNumber);
  }

  /** Sends any kind as it is, to the recipient as a JID (the API also takes phone numbers). */
  send(message: OutboundMessage, options?: SendOptions): Promise<SentKey> {
    // A status has no `to`: it goes to status@broadcast, to the contacts it lists.
    if (!('to' in message)) return this.connection().send(message, options);
    return this.connection().send({ ...message, to: recipientJid(message.to) }, options);
  }

  /** NetworkSession.sendLearned; true without a connection (nothing of it is held here). */
  sendLearned(messageId: string): boolean {
    return this.network?.sendLearned?.(messageId) ?? true;
  }

  markRead(chat: string, messageIds: string[]): Promise<void> {
    return this.connection().markRead(recipientJid(chat), messageIds);
  }

  sendPresence(chat: string, state: ChatPresence): Promise<void> {
    return this.connection().sendPresence(recipientJid(chat), state);
  }

  lookUp(phoneNumber: string): Promise<NumberLookup> {
    return this.connection().lookUp(phoneNumber);
  }

  groups(): NetworkGroups {
    return this.connection().groups();
  }

  readProfile(): Promise<OwnProfile> {
    return this.connection().readProfile();
  }

  updateProfile(update: ProfileUpdate): Promise<void> {
    return this.connection().updateProfile(update);
  }

  contactProfile(contact: string): Promise<ContactProfile> {
    return this.connection().contactProfile(recipientJid(contact));
  }

  setBlocked(contact: string, blocked: boolean): Promise<void> {
    return this.connection().setBlocked(recipientJid(contact), blocked);
  }

  rejectCall(call: IncomingCall): Promise<void> {
    return this.connection().rejectCall(call);
  }

  /** Unlinks the device; the resulting `disconnected/logged_out` is recorded like any change. */
  async logout(): Promise<void> {
    await this.network?.logout();
    await this.settled();
  }

  /** Planned stop (shutdown, shard hand-over): the stored state stays for the next owner. */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    // A held-back `connecting` is not recorded either: the stored state is the next owner's to restore.
    this.endQuietWindow();
    await this.network?.close();
    await this.settled();
  }

  private connection(): NetworkSession {
    if (!this.network) throw new Error(`session ${this.ref.sessionId} has no open connection`);
    return this.network;
  }

  private onLink(event: LinkEvent): void {
    if (event.type === 'qr') this.qr = event.qr;
    const change =
      event.type === 'disconnected' && this.refusingDuplicate
        ? { ...event, reason: 'number_in_use' as const }
        : event;
    if (event.type === 'disconnected') {
      this.network = null;
      this.onEnded(this);
      if (event.reason === 'connection_replaced' && this.onReplaced(this)) {
        // Reopened by the host: as for a planned close, nothing changes in what is stored.
        this.endQuietWindow();
        return this.notifyIfNotConnecting();
      }
    }
    const next = applyLinkChange(this.facts, change);
    if (next === null) return this.notifyIfNotConnecting();
    this.facts = next;
    this.notifyIfNotConnecting();
    const at = new Date();
    if (this.holdBack(next, at)) return;
    this.updatedAt = at;
    this.record(next, at);
  }

  /**
   * A restored session goes `connecting`, then `connected` again a moment later: recording and
   * announcing both would cost each of the thousands of sessions a worker restores two writes
   * and two events for no change anyone can act on (it was connected, it is connected). So the
   * first `connecting` of a restore is held back for the quiet window: connected again with the
   * same number by then, nothing is recorded; still connecting at its end, the held-back change
   * is recorded then; any other change ends the window and is recorded as usual. True when
   * `next` is held back or is no change from what is stored.
   */
  private holdBack(next: LinkFacts, at: Date): boolean {
    const held = this.heldBack;
    if (held === null) return false;
    if (next.state === 'connecting' && held.timer === null) {
      held.timer = setTimeout(() => {
        if (this.heldBack !== held) return;
        this.heldBack = null;
        this.updatedAt = at;
        this.record(next, at);
      }, held.quietMs);
      held.timer.unref();
      return true;
    }
    this.endQuietWindow();
    return sameFacts(next, held.stored);
  }

  private endQuietWindow(): void {
    if (this.heldBack?.timer) clearTimeout(this.heldBack.timer);
    this.heldBack = null;
  }

  private notifyIfNotConnecting(): void {
    if (this.facts.state === 'connecting' && this.network !== null) return;
    for (const done of [...this.leftConnecting]) done();
  }

  /** Writes `next` after every earlier change, then announces it. */
  private record(next: LinkFacts, at: Date): void {
    this.writes = this.writes
      .then(async () => {
        const recorded = await this.persist(next);
        if (recorded) await this.announce(recorded, at);
      })
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error, ...this.ref }, 'could not record session state'),
      );
  }

  /** Records the change; returns the facts recorded, or null when another worker owns the session now. */
  private async persist(next: LinkFacts): Promise<LinkFacts | null> {
    const result = await this.deps.sessions.saveState(this.ref, this.token, next);
    if (result === 'fenced') {
      // A newer owner holds this session: step back without touching anything else.
      this.deps.logger.warn({ ...this.ref }, 'session taken over by another worker; closing here');
      await this.network?.close();
      return null;
    }
    if (result === 'number_in_use') {
      this.deps.logger.info({ ...this.ref }, 'number already connected to another session; unlinking');
      this.refusingDuplicate = true;
      const refused: LinkFacts = { state: 'disconnected', phoneNumber: null, reason: 'number_in_use' };
      this.facts = refused;
      await this.deps.sessions.saveState(this.ref, this.token, refused);
      await this.network?.logout();
      await this.deps.credentials.clear(this.ref, this.token);
      return refused;
    }
    if (next.state === 'disconnected' && next.reason === 'logged_out') {
      // Only the network saying the device is logged out voids the credentials. Every other end
      // (connection replaced, refused, a timeout) keeps them, and a new start resumes from them.
      await this.deps.credentials.clear(this.ref, this.token);
    }
    return next;
  }

  /** Publishes a recorded change as `session.status`, once per actual change of the facts. */
  private async announce(recorded: LinkFacts, at: Date): Promise<void> {
    if (sameFacts(this.announced, recorded)) return;
    this.announced = recorded;
    try {
      await this.deps.statuses.sessionChanged(this.ref, recorded, at);
    } catch (error) {
      // The state itself is recorded (GET /sessions shows it); only its announcement is lost.
      this.deps.logger.error({ err: error, ...this.ref }, 'session.status could not be published');
    }
  }
}

const sameFacts = (a: LinkFacts, b: LinkFacts): boolean =>
  a.state === b.state && a.reason === b.reason && a.phoneNumber === b.phoneNumber;
