import { z } from 'zod';
import { eventEnvelopeFields } from './event-envelope';

/**
 * `group.updated` v1 (opt-in): a group the session's number is in changed its subject,
 * description or settings, or its invite link was revoked. Only the fields that changed are
 * present; `description: null` means it was removed.
 */
export const groupUpdatedEventSchema = z.object({
  event: z.literal('group.updated'),
  ...eventEnvelopeFields,
  group: z.object({
    /** `120363…@g.us`. */
    id: z.string(),
    subject: z.string().optional(),
    description: z.string().nullable().optional(),
    announcementOnly: z.boolean().optional(),
    locked: z.boolean().optional(),
    /** Present (true) when the invite link was revoked and a new one made. */
    inviteRevoked: z.boolean().optional(),
    /** Who made the change, when WhatsApp tells it (null: unknown). */
    author: z.string().nullable(),
  }),
});

export type GroupUpdatedEventV1 = z.output<typeof groupUpdatedEventSchema>;
