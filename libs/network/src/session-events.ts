import type { InboundNetworkMessage } from '@jumbe/domain';
import type { LinkEvent } from './link-event';
import type { GroupEvent } from './network-groups';
import type { MessageStatusReport } from './message-status-report';
import type { PollVote } from './poll-vote';
import type { IncomingCall } from './profile';

/** What a driver reports about one open session, to whoever opened it. */
export interface SessionEvents {
  onLink(event: LinkEvent): void;
  /**
   * Resolve only when the message is durably recorded; the driver acknowledges the network after.
   * Reject → the driver must redeliver it later (the sandbox keeps it pending and retries every
   * second), so a crash between receiving and recording never loses a message.
   */
  onInbound(message: InboundNetworkMessage): Promise<void>;
  /**
   * A status of a message this session sent (`server_ack`, `delivered`, …), as the network
   * reports it, possibly several times per step (one per recipient device). Fire and forget: the
   * network does not wait for it and does not repeat it.
   */
  onMessageStatus(report: MessageStatusReport): void;
  /** A call is ringing (offered). Fire and forget; absent → calls are ignored. */
  onCall?(call: IncomingCall): void;
  /** A group the number is in changed (members, subject, settings). Fire and forget; absent → ignored. */
  onGroupEvent?(event: GroupEvent): void;
  /** A contact voted on a poll this session sent. Fire and forget; absent → ignored. */
  onPollVote?(vote: PollVote): void;
}
