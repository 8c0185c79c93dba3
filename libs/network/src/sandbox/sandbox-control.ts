import { randomUUID } from 'node:crypto';
import { isValidPhoneNumber } from '@jumbe/domain';
import type { SentMessageStatus } from '../message-status-report';
import { NetworkSendError } from '../network-send-error';
import { NotReadyError } from '../not-ready-error';
import type { SessionRef } from '../session-ref';
import { contactMessageToInbound, type SandboxContactMessage } from './sandbox-contact-message';
import { newInboundMessageId } from './sandbox-ids';
import type { SandboxSession } from './sandbox-session';
import {
  isSentMessage,
  SANDBOX_MEDIA_TTL_MS,
  SANDBOX_OUTBOX_CAPACITY,
  type SandboxOutboxEntry,
  type SandboxStore,
} from './sandbox-store';

/** How a contact or the network disturbs a session (CONTRACT §9, `POST /sandbox/disconnect`). */
export type SandboxDisconnectKind = 'network' | 'logged_out';

export const SANDBOX_OUTBOX_DEFAULT_LIMIT = 50;

/**
 * The phone's and the network's side of the sandbox (the `/sandbox/*` routes). Scans, contact
 * messages and drops act on a live connection, which exists only in the worker that opened the
 * session: obtain this from that worker's SandboxNetworkDriver (`control()`) and route calls to
 * it like any session command. The outbox is network state and readable from any worker.
 */
export class SandboxControl {
  constructor(
    private readonly store: SandboxStore,
    private readonly liveSession: (ref: SessionRef) => SandboxSession | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The phone with `phoneNumber` scans the session's QR or enters its pairing code (the number is
   * not checked against the one the code was requested for). NotReadyError when the session is not
   * waiting for either, NumberInUseError when another connected session has the number.
   */
  async scan(ref: SessionRef, phoneNumber: string): Promise<void> {
    if (!isValidPhoneNumber(phoneNumber)) throw new RangeError('phoneNumber must be 7 to 15 digits');
    const session = this.liveSession(ref);
    if (!session) throw new NotReadyError('the session is not waiting for a scan or a code');
    await session.linkPhone(phoneNumber);
  }

  /**
   * A contact sends the session a message. Resolves once the network holds it, with the id the
   * `message.received` event will carry; delivery to `onInbound` follows asynchronously (and is
   * retried until recorded). NetworkSendError('session_not_connected') when no linked connection
   * of the session is open here.
   */
  async inbound(ref: SessionRef, message: SandboxContactMessage): Promise<{ id: string }> {
    if (!isValidSender(message.from)) {
      throw new RangeError('from must be 7 to 15 digits (or <digits>@s.whatsapp.net)');
    }
    const session = this.liveSession(ref);
    if (!session) throw new NetworkSendError('session_not_connected', 'the session is not connected');
    if (message.pollVote) return this.vote(ref, session, message.from, message.pollVote);
    const inbound = contactMessageToInbound(message, this.now());
    // On the media servers before the message arrives: a bot may fetch it as soon as it hears of it.
    if (inbound.media && message.media?.data) {
      const file = {
        mimetype: inbound.media.mimetype ?? 'application/octet-stream',
        fileName: inbound.media.fileName,
      };
      await this.store.putMediaFile(
        ref,
        inbound.id,
        { ...file, data: Buffer.from(message.media.data, 'base64') },
        SANDBOX_MEDIA_TTL_MS,
      );
    }
    await session.receive(inbound);
    return { id: inbound.id };
  }

  /**
   * A contact votes on a poll the session sent to them or to a group (still in its outbox), as
   * WhatsApp would deliver it decrypted: `message.poll_vote` with their whole choice.
   */
  private async vote(
    ref: SessionRef,
    session: SandboxSession,
    from: string,
    vote: { pollId: string; options: string[] },
  ): Promise<{ id: string }> {
    const voter = from.includes('@') ? from : `${from}@s.whatsapp.net`;
    const poll = (await this.store.outbox(ref, SANDBOX_OUTBOX_CAPACITY)).find(
      (entry) =>
        entry.id === vote.pollId &&
        entry.type === 'poll' &&
        (entry.to === voter || entry.to.endsWith('@g.us')),
    );
    if (!poll) {
      throw new NetworkSendError(
        'message_not_found',
        `This session sent no poll ${vote.pollId} to ${from} that the sandbox remembers.`,
      );
    }
    const offered = Array.isArray(poll.content['options']) ? poll.content['options'].map(String) : [];
    const unknown = vote.options.filter((option) => !offered.includes(option));
    if (unknown.length > 0) {
      throw new NetworkSendError('validation_error', `The poll has no option ${JSON.stringify(unknown[0])}.`);
    }
    if (poll.content['multipleChoice'] !== true && new Set(vote.options).size > 1) {
      throw new NetworkSendError('validation_error', 'The poll is single choice: vote for one option.');
    }
    const id = newInboundMessageId();
    session.reportPollVote({
      id,
      pollId: vote.pollId,
      chat: poll.to,
      voter,
      voterPhone: voter.split('@', 1)[0] ?? from,
      selectedOptions: offered.filter((option) => vote.options.includes(option)),
      votedAt: this.now(),
    });
    return { id };
  }

  /**
   * The recipient's phone marks a message the session sent (still in its outbox) as delivered,
   * read, played, or the network reports it failed: the session reports that status. Null when
   * the session sent no such message (a read receipt or presence is none).
   * NetworkSendError('session_not_connected') when no connection of the session is open here.
   */
  async markStatus(
    ref: SessionRef,
    messageId: string,
    status: SentMessageStatus,
  ): Promise<{ messageId: string; to: string; status: SentMessageStatus } | null> {
    const session = this.liveSession(ref);
    if (!session) throw new NetworkSendError('session_not_connected', 'the session is not connected');
    const sent = (await this.store.outbox(ref, SANDBOX_OUTBOX_CAPACITY)).find(
      (entry) => entry.id === messageId,
    );
    if (!sent || !isSentMessage(sent)) return null;
    session.reportStatus({ messageId, to: sent.to, status, at: this.now() });
    return { messageId, to: sent.to, status };
  }

  /** A contact calls the number: the session sees a ringing call (`call.received`). */
  async call(ref: SessionRef, call: { from: string; video: boolean }): Promise<{ callId: string }> {
    const session = this.liveSession(ref);
    if (!session) throw new NetworkSendError('session_not_connected', 'the session is not connected');
    const callId = `SANDBOX-CALL-${randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase()}`;
    session.ring({
      id: callId,
      from: `${call.from}@s.whatsapp.net`,
      callerPhone: call.from,
      video: call.video,
      group: false,
      groupJid: null,
      offeredAt: this.now(),
    });
    return { callId };
  }

  /** What the network received from the session, newest first. */
  outbox(ref: SessionRef, limit: number = SANDBOX_OUTBOX_DEFAULT_LIMIT): Promise<SandboxOutboxEntry[]> {
    return this.store.outbox(ref, Math.min(Math.max(1, Math.floor(limit)), SANDBOX_OUTBOX_CAPACITY));
  }

  /**
   * `network`: the connection drops and comes back by itself (`connecting`, then `connected`).
   * `logged_out`: the phone unlinks the device; the session ends `disconnected`/`logged_out`.
   */
  async disconnect(ref: SessionRef, kind: SandboxDisconnectKind): Promise<void> {
    const session = this.liveSession(ref);
    if (!session) throw new NetworkSendError('session_not_connected', 'the session is not connected');
    if (kind === 'network') session.dropNetwork();
    else await session.unlinkByPhone();
  }
}

function isValidSender(from: string): boolean {
  const [user, domain] = from.split('@');
  return isValidPhoneNumber(user ?? '') && (domain === undefined || domain === 's.whatsapp.net');
}
