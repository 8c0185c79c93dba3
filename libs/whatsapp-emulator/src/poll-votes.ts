import { proto } from '@whiskeysockets/baileys';
import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { EmulatedUser } from './emulated-user';
import type { EmulatedNetwork, ReceivedMessage } from './network';

/**
 * A contact's phone voting on a poll it received, as WhatsApp does: the choice (SHA-256 of each
 * option's text) is encrypted with a key derived from the poll's secret
 * (`messageContextInfo.messageSecret`), the poll's id, the creator's and the voter's JIDs, and sent
 * to the poll's creator as a `pollUpdateMessage`. Returns the vote message's id.
 */
export async function voteOnPoll(
  network: EmulatedNetwork,
  voter: EmulatedUser,
  creator: EmulatedUser,
  poll: ReceivedMessage,
  options: string[],
  addressing: 'pn' | 'lid' = 'pn',
): Promise<string> {
  const secret = poll.message.messageContextInfo?.messageSecret;
  if (!secret) throw new Error('the poll carries no secret: not a poll creation message');
  // A LID-addressed chat names both sides by LID, in the key derivation too.
  const [creatorJid, voterJid] = addressing === 'lid' ? [creator.lid, voter.lid] : [creator.jid, voter.jid];
  const vote = encryptedPollVote({ id: poll.id, creatorJid, secret }, voterJid, options);
  const message = {
    pollUpdateMessage: {
      pollCreationMessageKey: { remoteJid: creatorJid, fromMe: false, id: poll.id },
      vote,
      senderTimestampMs: Date.now(),
    },
  };
  return network.sendMessage(voter, creator, message, { addressing });
}

/** The poll's options as its creation message lists them (any of the three poll versions). */
export function pollOptions(poll: proto.IMessage): string[] {
  const creation = poll.pollCreationMessage ?? poll.pollCreationMessageV2 ?? poll.pollCreationMessageV3;
  return (creation?.options ?? []).map((option) => option.optionName ?? '');
}

/** WhatsApp's poll-vote encryption: AES-256-GCM, the tag after the ciphertext. */
export function encryptedPollVote(
  poll: { id: string; creatorJid: string; secret: Uint8Array },
  voterJid: string,
  options: string[],
): proto.Message.IPollEncValue {
  const selectedOptions = options.map((option) => createHash('sha256').update(option).digest());
  const plaintext = proto.Message.PollVoteMessage.encode({ selectedOptions }).finish();
  const sign = Buffer.concat([
    Buffer.from(poll.id),
    Buffer.from(poll.creatorJid),
    Buffer.from(voterJid),
    Buffer.from('Poll Vote'),
    Buffer.from([1]),
  ]);
  const key0 = createHmac('sha256', Buffer.alloc(32)).update(poll.secret).digest();
  const key = createHmac('sha256', key0).update(sign).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${poll.id}\u0000${voterJid}`));
  const encrypted = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { encPayload: encrypted, encIv: iv };
}
