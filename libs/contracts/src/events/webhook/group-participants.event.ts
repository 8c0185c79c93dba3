import { z } from 'zod';
import { eventEnvelopeFields } from './event-envelope';

export const GROUP_PARTICIPANT_CHANGES = ['add', 'remove', 'promote', 'demote'] as const;

/**
 * `group.participants` v1 (opt-in): members of a group the session's number is in were added,
 * removed (or left), promoted to admin or demoted, by the session itself or by anyone else.
 */
export const groupParticipantsEventSchema = z.object({
  event: z.literal('group.participants'),
  ...eventEnvelopeFields,
  group: z.object({
    /** `120363…@g.us`. */
    id: z.string(),
    action: z.enum(GROUP_PARTICIPANT_CHANGES),
    /** The members concerned: `…@s.whatsapp.net`, or `…@lid` in a group that hides numbers. */
    participants: z.array(z.string()),
    /** Who made the change, when WhatsApp tells it (null: unknown). */
    author: z.string().nullable(),
  }),
});

export type GroupParticipantsEventV1 = z.output<typeof groupParticipantsEventSchema>;
