import { z } from 'zod';

/**
 * Who sent a received message and where a reply goes, exactly as in `message.received`
 * (libs/domain's `inboundSender`): answer `replyTo`, never anything else.
 */
export const senderFields = {
  from: z.string().nullable(),
  replyTo: z.string().nullable(),
  phoneNumber: z.string().nullable(),
  chat: z.string().nullable(),
  participant: z.string().nullable(),
  rawFrom: z.string().nullable(),
  rawChat: z.string().nullable(),
  pushName: z.string().nullable(),
};

/** The network id of the message that carried the change, and when it was sent (ISO 8601). */
export const changeMessageFields = {
  id: z.string(),
  messageTimestamp: z.string(),
};
