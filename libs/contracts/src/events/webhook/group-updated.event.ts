import { z } from 'zod';
import { type EventEnvelope, eventEnvelopeFields } from './event-envelope';

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

/** What a driver reports of a group's own change (libs/network's GroupEvent `updated`). */
export interface GroupUpdatedChange {
  kind: 'updated';
  groupId: string;
  /** Only what changed. */
  changes: Omit<GroupUpdatedEventV1['group'], 'id' | 'author'>;
  author: string | null;
}

/** The `group.updated` body for a change of a group's subject, description or settings (see `groupChangeEvent`). */
export function groupUpdatedEvent(envelope: EventEnvelope, change: GroupUpdatedChange): GroupUpdatedEventV1 {
  return {
    event: 'group.updated',
    ...envelope,
    group: { id: change.groupId, ...change.changes, author: change.author },
  };
}
