import {
  callReceivedEvent,
  groupChangeEvent,
  inboundEventSubject,
  messagePollVoteEvent,
  messageStatusEvent,
  sessionEventId,
  sessionStatusEvent,
  type StreamEvent,
} from '@jumbe/contracts';
import { type LinkFacts, shardOf } from '@jumbe/domain';
import type { EventPublisher } from '@jumbe/messaging';
import type {
  GroupEvent,
  IncomingCall,
  MessageStatusReport,
  PollVote,
  SentMessageStatus,
  SessionRef,
} from '@jumbe/network';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import { EVERY_EVENT, type EventTypeFilter } from './subscription-filter';

export interface StatusRelayOptions {
  /** Tries to store one event before giving up on it (the stream may be briefly unreachable). */
  tries: number;
  retryDelayMs: number;
}

const DEFAULT_OPTIONS: StatusRelayOptions = { tries: 3, retryDelayMs: 1_000 };

/** How far along its life each status puts a sent message; `failed` is reported once, whenever. */
const STEP: Record<SentMessageStatus, number> = {
  server_ack: 1,
  delivered: 2,
  read: 3,
  played: 4,
  failed: 5,
};

/**
 * Puts what a session reports about itself on the event stream, on its session's subject (so
 * it stays in order with the session's received messages): `session.status` for each recorded
 * state change, and `message.status` for each step a sent message reached. Each event's id is derived from the fact it reports, so a retried publish is
 * stored once. The account's webhook receives it only if it subscribed to the type.
 */
export class StatusRelay {
  /**
   * The furthest step reported per sent message (`account/session/id`): a group's or a contact's
   * many devices each send receipts, and a step already passed is not reported again.
   */
  private readonly reached = new LRUCache<string, number>({ max: 50_000, ttl: 7 * 24 * 60 * 60 * 1000 });

  constructor(
    private readonly events: EventPublisher,
    /** Keeps events off the stream that the account's webhook would not take anyway. */
    private readonly wanted: EventTypeFilter = EVERY_EVENT,
    private readonly options: StatusRelayOptions = DEFAULT_OPTIONS,
  ) {}

  /** A state change the worker recorded at `at`. */
  async sessionChanged(ref: SessionRef, facts: LinkFacts, at: Date): Promise<void> {
    const event = sessionStatusEvent(ref.accountId, ref.sessionId, facts, at);
    if (event === null || !(await this.wanted.wants(ref.accountId, event.event))) return;
    const fact = `${at.getTime()}:${facts.state}:${facts.reason ?? ''}`;
    await this.publish(ref, sessionEventId(ref.accountId, ref.sessionId, event.event, fact), event);
  }

  /** A status of a sent message, unless that step (or a later one) was already reported. */
  async messageStatus(ref: SessionRef, report: MessageStatusReport): Promise<void> {
    const key = `${ref.accountId}/${ref.sessionId}/${report.messageId}`;
    const step = STEP[report.status];
    const passed = () => (this.reached.get(key) ?? 0) >= step;
    if (passed()) return;
    // Asked again after the filter answered: another device's receipt may have got there first.
    if (!(await this.wanted.wants(ref.accountId, 'message.status')) || passed()) return;
    this.reached.set(key, step);
    const event = messageStatusEvent(ref.accountId, ref.sessionId, report, new Date());
    const fact = `${report.messageId}:${report.status}`;
    try {
      await this.publish(ref, sessionEventId(ref.accountId, ref.sessionId, event.event, fact), event);
    } catch (error) {
      // Not published: the next device's receipt for this step may try again.
      if (this.reached.get(key) === step) this.reached.delete(key);
      throw error;
    }
  }

  /** A call rang (`call.received`, opt-in); `rejected`: the session declined it by itself. */
  async callReceived(ref: SessionRef, call: IncomingCall, rejected: boolean): Promise<void> {
    if (!(await this.wanted.wants(ref.accountId, 'call.received'))) return;
    const event = callReceivedEvent(ref.accountId, ref.sessionId, call, rejected, new Date());
    await this.publish(ref, sessionEventId(ref.accountId, ref.sessionId, event.event, call.id), event);
  }

  /** A vote on a poll the session sent (`message.poll_vote`, opt-in); one event per vote message. */
  async pollVoted(ref: SessionRef, vote: PollVote): Promise<void> {
    if (!(await this.wanted.wants(ref.accountId, 'message.poll_vote'))) return;
    const event = messagePollVoteEvent(ref.accountId, ref.sessionId, vote, new Date());
    await this.publish(ref, sessionEventId(ref.accountId, ref.sessionId, event.event, vote.id), event);
  }

  /** A change to a group the number is in (`group.participants` / `group.updated`, opt-in). */
  async groupChanged(ref: SessionRef, change: GroupEvent): Promise<void> {
    const event = groupChangeEvent(ref.accountId, ref.sessionId, change, new Date());
    if (!(await this.wanted.wants(ref.accountId, event.event))) return;
    const fact = createHash('sha256')
      .update(`${event.timestamp}:${JSON.stringify(event.group)}`)
      .digest('hex');
    await this.publish(
      ref,
      sessionEventId(ref.accountId, ref.sessionId, event.event, fact.slice(0, 32)),
      event,
    );
  }

  private async publish(ref: SessionRef, eventId: string, payload: StreamEvent): Promise<void> {
    const shard = shardOf(ref.accountId, ref.sessionId);
    const outgoing = {
      eventId,
      subject: inboundEventSubject(shard, ref.accountId, ref.sessionId),
      shard,
      payload,
    };
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.events.publish(outgoing);
      } catch (error) {
        if (attempt >= this.options.tries) throw error;
        await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs));
      }
    }
  }
}
