import { z } from 'zod';
import {
  networkMessageIdField,
  nonEmptyText,
  phoneNumberField,
  quotedMessageIdField,
  recipientField,
  sessionIdField,
} from './common';

/**
 * The conversation's message kinds beyond the spec's three (CONTRACT §11 extensions): locations,
 * contact cards and reactions. Strict like the spec's: unknown fields refused, ranges checked.
 */

/** A network message id as a send returned it or a webhook event carried it. */
export const messageIdField = networkMessageIdField('messageId').describe(
  'The `id` a send returned (`data.key.id`) or a webhook event carried (`message.id`).',
);

export const locationMessageFields = z.strictObject({
  to: recipientField,
  latitude: z.number().min(-90, 'latitude must be -90 to 90').max(90, 'latitude must be -90 to 90'),
  longitude: z.number().min(-180, 'longitude must be -180 to 180').max(180, 'longitude must be -180 to 180'),
  name: z.string().max(256, 'name must be at most 256 characters').optional(),
  address: z.string().max(512, 'address must be at most 512 characters').optional(),
  quotedMessageId: quotedMessageIdField,
});
export const sendLocationSchema = locationMessageFields.extend({ sessionId: sessionIdField });

export const contactCardSchema = z.strictObject({
  name: nonEmptyText('name', 256),
  phoneNumber: phoneNumberField,
});
export const contactMessageFields = z.strictObject({
  to: recipientField,
  contacts: z
    .array(contactCardSchema)
    .min(1, 'contacts needs 1 to 10 entries')
    .max(10, 'contacts needs 1 to 10 entries'),
  quotedMessageId: quotedMessageIdField,
});
export const sendContactSchema = contactMessageFields.extend({ sessionId: sessionIdField });

/** At most one emoji (one grapheme, however many code points it is made of); '' removes the reaction. */
const emojiField = z
  .string()
  .max(64, 'emoji must be a single emoji, or "" to remove the reaction')
  .refine(atMostOneGrapheme, 'emoji must be a single emoji, or "" to remove the reaction')
  .refine((value) => !/[\p{L}\p{N}\s]/u.test(value), 'emoji must be an emoji, not a letter, digit or space');

export const reactionMessageFields = z.strictObject({
  to: recipientField,
  messageId: messageIdField,
  emoji: emojiField,
});
export const sendReactionSchema = reactionMessageFields.extend({ sessionId: sessionIdField });

/**
 * Counts lazily and stops at the second grapheme, and never segments a long string: each segment
 * object holds the whole input, so segmenting a megabyte of text would exhaust the heap (found by
 * the security suite's fuzzer).
 */
function atMostOneGrapheme(value: string): boolean {
  if (value.length > 64) return false;
  let count = 0;
  for (const _segment of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(value)) {
    if (++count > 1) return false;
  }
  return true;
}

/** Deletes a message this session sent, for everyone (within WhatsApp's 60 hours). */
export const revokeMessageFields = z.strictObject({ to: recipientField, messageId: messageIdField });
export const sendRevokeSchema = revokeMessageFields.extend({ sessionId: sessionIdField });

/** Replaces the text of a text message this session sent (within WhatsApp's 15 minutes). */
export const editMessageFields = z.strictObject({
  to: recipientField,
  messageId: messageIdField,
  text: nonEmptyText('text', 65_536),
});
export const sendEditSchema = editMessageFields.extend({ sessionId: sessionIdField });

export type SendLocationInput = z.output<typeof sendLocationSchema>;
export type SendContactInput = z.output<typeof sendContactSchema>;
export type SendReactionInput = z.output<typeof sendReactionSchema>;
