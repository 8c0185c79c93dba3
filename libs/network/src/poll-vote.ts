/**
 * A vote on a poll this session sent, decrypted with the poll's secret: the voter's whole choice
 * now (a later vote replaces it; empty when they took it back).
 */
export interface PollVote {
  /** The network id of the message that carried the vote. */
  id: string;
  /** The poll's id (the id its send returned). */
  pollId: string;
  /** The chat the poll is in (JID). */
  chat: string;
  /** The voter's id (JID) as the network gave it. */
  voter: string;
  /** The voter's phone number (digits), when known. */
  voterPhone: string | null;
  /** The options chosen, by their text. */
  selectedOptions: string[];
  votedAt: Date;
}
