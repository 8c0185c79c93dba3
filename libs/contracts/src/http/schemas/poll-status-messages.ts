import { z } from 'zod';
import { httpUrlField, nonEmptyText, phoneNumberField, recipientField, sessionIdField } from './common';

/**
 * Polls and status posts (CONTRACT §11 extensions, issue 30 items 3 and 7). Strict like the other
 * kinds: unknown fields refused, ranges checked.
 */

export const MAX_POLL_OPTIONS = 12;

/** A poll: WhatsApp shows 2 to 12 distinct options; votes arrive as `message.poll_vote` (opt-in). */
export const pollMessageFields = z.strictObject({
  to: recipientField,
  question: nonEmptyText('question', 255),
  options: z
    .array(nonEmptyText('option', 100))
    .min(2, `options needs 2 to ${MAX_POLL_OPTIONS} entries`)
    .max(MAX_POLL_OPTIONS, `options needs 2 to ${MAX_POLL_OPTIONS} entries`)
    // Votes name options by a hash of their text: two equal options could not be told apart.
    .refine((options) => new Set(options).size === options.length, 'options must be unique')
    .describe('2 to 12 distinct options; a vote names the options chosen by this text.'),
  multipleChoice: z
    .boolean()
    .optional()
    .describe('Let a voter choose several options (default: a single one).'),
});
export const sendPollSchema = pollMessageFields.extend({ sessionId: sessionIdField });

export const STATUS_TYPES = ['text', 'image', 'video'] as const;
/** How many contacts one status post may go to (each gets its own encrypted copy of the key). */
export const MAX_STATUS_CONTACTS = 1_000;

/**
 * A status (story), to the contacts listed: Jumbe keeps no address book of the number (it
 * does not sync the phone's contacts), so the list says who may see it.
 */
const statusFields = z.strictObject({
  type: z.enum(STATUS_TYPES).default('text').describe('`text` (default), `image` or `video`.'),
  text: z.string().max(700, 'text must be at most 700 characters').optional(),
  url: httpUrlField('invalid_media_url', 'url').optional(),
  caption: z.string().max(1024, 'caption must be at most 1024 characters').optional(),
  backgroundColor: z
    .string()
    .regex(/^#[0-9A-Fa-f]{6}$/, 'backgroundColor must be a colour like #1E90FF')
    .optional()
    .describe('A text status: its background colour, `#RRGGBB`.'),
  font: z.number().int().min(0, 'font must be 0 to 9').max(9, 'font must be 0 to 9').optional(),
  contacts: z
    .array(phoneNumberField)
    .min(1, `contacts needs 1 to ${MAX_STATUS_CONTACTS} numbers`)
    .max(MAX_STATUS_CONTACTS, `contacts needs 1 to ${MAX_STATUS_CONTACTS} numbers`)
    .refine((numbers) => new Set(numbers).size === numbers.length, 'contacts must be unique')
    .describe('The numbers (digits) that see the status: only contacts who saved this number do.'),
});

/** What depends on the type: a text status has text and no URL; image and video have a URL. */
export function statusTypeRules(status: z.output<typeof statusFields>, context: z.RefinementCtx): void {
  const problem = (path: string, message: string) =>
    context.addIssue({ code: 'custom', path: [path], message });
  if (status.type === 'text') {
    if (!status.text) problem('text', 'a text status needs text');
    if (status.url !== undefined) problem('url', 'a text status has no url (use type "image" or "video")');
    if (status.caption !== undefined) problem('caption', 'a text status has no caption');
  } else {
    if (status.url === undefined) problem('url', `an ${status.type} status needs url`);
    if (status.text !== undefined) problem('text', `an ${status.type} status has a caption, not text`);
    if (status.backgroundColor !== undefined || status.font !== undefined)
      problem('backgroundColor', 'backgroundColor and font are for text statuses');
  }
}

export const statusMessageFields = statusFields;
export const sendStatusSchema = statusFields
  .extend({ sessionId: sessionIdField })
  .superRefine(statusTypeRules);

export type SendPollInput = z.output<typeof sendPollSchema>;
export type SendStatusInput = z.output<typeof sendStatusSchema>;
