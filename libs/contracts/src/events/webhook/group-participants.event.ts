import { z } from 'zod';
import { type EventEnvelope, eventEnvelopeFields } from './event-envelope';

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

/** What a driver reports of a group's members changing (libs/network's GroupEvent `participants`). */
export interface GroupParticipantsChange {
  kind: 'participants';
  groupId: string;
  action: (typeof GROUP_PARTICIPANT_CHANGES)[number];
  participants: string[];
  author: string | null;
}

/** The `group.participants` body for a change of a group's members (see `groupChangeEvent`). */
export function groupParticipantsEvent(
  envelope: EventEnvelope,
  change: GroupParticipantsChange,
): GroupParticipantsEventV1 {
  return {
    event: 'group.participants',
    ...envelope,
    group: {
      id: change.groupId,
      action: change.action,
      participants: change.participants,
      author: change.author,
    },
  };
}
