import { z } from 'zod';
import { eventEnvelopeFields } from './event-envelope';

/**
 * `message.poll_vote` v1 (opt-in): a contact voted on a poll this session sent, decrypted with the
 * poll's secret. Each vote replaces the voter's previous one: `selectedOptions` is their whole
 * choice now (empty when they took their vote back).
 */
export const messagePollVoteEventSchema = z.object({
  event: z.literal('message.poll_vote'),
  ...eventEnvelopeFields,
  vote: z.object({
    /** The network id of the message that carried the vote. */
    id: z.string(),
    /** The poll voted on: the `data.key.id` its send returned. */
    pollId: z.string(),
    /** The chat the poll is in (a contact's or a group's JID). */
    chat: z.string(),
    /** The voter's number (digits) when WhatsApp gives it, else their id. */
    from: z.string(),
    /** Where a reply to the voter goes: use it as `to`. */
    replyTo: z.string(),
    /** The options chosen, by their text as the poll was sent. */
    selectedOptions: z.array(z.string()),
    /** When the voter voted (ISO 8601). */
    votedAt: z.string(),
  }),
});

export type MessagePollVoteEventV1 = z.output<typeof messagePollVoteEventSchema>;

/** What a driver reports of a decrypted vote (libs/network's PollVote). */
interface DecryptedVote {
  id: string;
  pollId: string;
  chat: string;
  voter: string;
  voterPhone: string | null;
  selectedOptions: string[];
  votedAt: Date;
}

/** The `message.poll_vote` body for a vote on a poll the session sent. */
export function messagePollVoteEvent(
  accountId: string,
  sessionId: string,
  vote: DecryptedVote,
  at: Date,
): MessagePollVoteEventV1 {
  const from = vote.voterPhone ?? vote.voter;
  return {
    event: 'message.poll_vote',
    timestamp: at.toISOString(),
    customerId: accountId,
    sessionId,
    vote: {
      id: vote.id,
      pollId: vote.pollId,
      chat: vote.chat,
      from,
      replyTo: vote.voterPhone ?? vote.voter,
      selectedOptions: vote.selectedOptions,
      votedAt: vote.votedAt.toISOString(),
    },
  };
}
