import {
  decryptPollVote,
  jidNormalizedUser,
  normalizeMessageContent,
  type proto,
  type WAMessage,
} from '@whiskeysockets/baileys';
import { createHash } from 'node:crypto';
import type { PollVote } from '../poll-vote';

/** The encrypted vote a message carries, with the poll it is about; null for any other message. */
export function pollUpdateOf(raw: WAMessage): proto.Message.IPollUpdateMessage | null {
  return normalizeMessageContent(raw.message)?.pollUpdateMessage ?? null;
}

/** Who the poll's creator and the voter may be named as: their phone JIDs and their LIDs. */
export interface VoteParties {
  creators: (string | null | undefined)[];
  voters: (string | null | undefined)[];
}

/**
 * Decrypts a vote with the poll creation message's secret (`messageContextInfo.messageSecret`)
 * and names the options chosen. The key is derived from the poll's id, the creator's and the
 * voter's JIDs, which WhatsApp may give as phone numbers or LIDs: each pairing is tried (a wrong one
 * fails the AES-GCM tag). Null when no pairing opens it or the creation message has no secret.
 */
export function decryptedVote(
  raw: WAMessage,
  update: proto.Message.IPollUpdateMessage,
  creation: proto.IMessage,
  parties: VoteParties,
  voterPhone: string | null,
): PollVote | null {
  const pollId = update.pollCreationMessageKey?.id;
  const secret = creation.messageContextInfo?.messageSecret;
  const vote = update.vote;
  const id = raw.key.id;
  const chat = raw.key.remoteJid;
  if (!pollId || !secret || !vote?.encPayload || !vote.encIv || !id || !chat) return null;
  for (const creator of distinct(parties.creators)) {
    for (const voter of distinct(parties.voters)) {
      try {
        const opened = decryptPollVote(
          { encPayload: vote.encPayload, encIv: vote.encIv },
          { pollCreatorJid: creator, pollMsgId: pollId, pollEncKey: secret, voterJid: voter },
        );
        return {
          id,
          pollId,
          chat,
          voter,
          voterPhone,
          selectedOptions: optionNames(creation, opened.selectedOptions ?? []),
          votedAt: votedAt(update, raw),
        };
      } catch {
        // Not this pairing of JIDs: the next one.
      }
    }
  }
  return null;
}

/** The poll's options whose SHA-256 is among the chosen hashes, in the poll's order. */
export function optionNames(creation: proto.IMessage, chosen: Uint8Array[]): string[] {
  const poll =
    creation.pollCreationMessage ?? creation.pollCreationMessageV2 ?? creation.pollCreationMessageV3 ?? null;
  const hashes = new Set(chosen.map((hash) => Buffer.from(hash).toString('hex')));
  return (poll?.options ?? [])
    .map((option) => option.optionName ?? '')
    .filter((name) => hashes.has(createHash('sha256').update(name).digest('hex')));
}

function votedAt(update: proto.Message.IPollUpdateMessage, raw: WAMessage): Date {
  const sentMs = Number(update.senderTimestampMs ?? 0);
  if (sentMs > 0) return new Date(sentMs);
  const seconds = Number(raw.messageTimestamp ?? 0);
  return seconds > 0 ? new Date(seconds * 1000) : new Date();
}

function distinct(jids: (string | null | undefined)[]): string[] {
  return [...new Set(jids.filter((jid): jid is string => !!jid).map((jid) => jidNormalizedUser(jid)))];
}
