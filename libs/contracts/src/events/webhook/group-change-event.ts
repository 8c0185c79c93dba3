import { eventEnvelope } from './event-envelope';
import {
  type GroupParticipantsChange,
  type GroupParticipantsEventV1,
  groupParticipantsEvent,
} from './group-participants.event';
import { type GroupUpdatedChange, type GroupUpdatedEventV1, groupUpdatedEvent } from './group-updated.event';

/** A change the network reported to a group the number is in. */
export type GroupChange = GroupParticipantsChange | GroupUpdatedChange;

/** A group change as the webhook event of its type (`group.participants`, `group.updated`). */
export function groupChangeEvent(
  accountId: string,
  sessionId: string,
  change: GroupChange,
  at: Date,
): GroupParticipantsEventV1 | GroupUpdatedEventV1 {
  const envelope = eventEnvelope(accountId, sessionId, at);
  return change.kind === 'participants'
    ? groupParticipantsEvent(envelope, change)
    : groupUpdatedEvent(envelope, change);
}
