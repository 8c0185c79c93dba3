import type { OutboundMessage } from '@jumbe/contracts';
import { applyLinkChange, type LinkFacts, recipientJid, type SessionView, sessionView } from '@jumbe/domain';
import type {
  ChatPresence,
  LinkEvent,
  NetworkDriver,
  NetworkSession,
  NumberLookup,
  SentKey,
  SessionRef,
} from '@jumbe/network';
import type { Logger } from 'pino';
import type { InboundRelay } from './inbound-relay';
import type { CredentialStore } from './ports/credential-store';
import type { SessionStore } from './ports/session-store';
import type { StatusRelay } from './status-relay';

export interface LiveSessionDeps {
  sessions: SessionStore;
  credentials: CredentialStore;
  inbound: InboundRelay;
  statuses: StatusRelay;
  logger: Logger;
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

  constructor(
    readonly ref: SessionRef,
    readonly shard: number,
    private readonly token: number,
    private facts: LinkFacts,
    private updatedAt: Date,
    private readonly deps: LiveSessionDeps,
    /** Called once when the connection ends for good, so the host forgets this session. */
    private readonly onEnded: (session: LiveSession) => void,
  ) {
    this.announced = facts;
  }

  /** `stillOwned` tells the driver, before each reconnect, whether this worker still owns the shard. */
  async open(driver: NetworkDriver, linked: boolean, stillOwned: () => boolean): Promise<void> {
    this.network = await driver.open(
      this.ref,
      {
        onLink: (event) => this.onLink(event),
        onInbound: (message) => this.deps.inbound.relay(this.ref, message),
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

  requestPairingCode(phoneNumber: string): Promise<string> {
    return this.connection().requestPairingCode(phoneNumber);
  }

  send(message: OutboundMessage): Promise<SentKey> {
    const connection = this.connection();
    const to = recipientJid(message.body.to);
    switch (message.kind) {
      case 'text':
        return connection.send({ kind: 'text', ...message.body, to });
      case 'media':
        return connection.send({ kind: 'media', ...message.body, to });
      case 'interactive':
        return connection.send({ kind: 'interactive', ...message.body, to });
      case 'location':
        return connection.send({ kind: 'location', ...message.body, to });
      case 'contact':
        return connection.send({ kind: 'contact', ...message.body, to });
      case 'reaction':
        return connection.send({ kind: 'reaction', ...message.body, to });
      case 'revoke':
        return connection.send({ kind: 'revoke', ...message.body, to });
      case 'edit':
        return connection.send({ kind: 'edit', ...message.body, to });
    }
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

  /** Unlinks the device; the resulting `disconnected/logged_out` is recorded like any change. */
  async logout(): Promise<void> {
    await this.network?.logout();
    await this.settled();
  }

  /** Planned stop (shutdown, shard hand-over): the stored state stays for the next owner. */
  async close(): Promise<void> {
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
    }
    const next = applyLinkChange(this.facts, change);
    if (next === null) return;
    this.facts = next;
    const at = new Date();
    this.updatedAt = at;
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
    const previous = this.announced;
    if (
      previous.state === recorded.state &&
      previous.reason === recorded.reason &&
      previous.phoneNumber === recorded.phoneNumber
    )
      return;
    this.announced = recorded;
    try {
      await this.deps.statuses.sessionChanged(this.ref, recorded, at);
    } catch (error) {
      // The state itself is recorded (GET /sessions shows it); only its announcement is lost.
      this.deps.logger.error({ err: error, ...this.ref }, 'session.status could not be published');
    }
  }
}
