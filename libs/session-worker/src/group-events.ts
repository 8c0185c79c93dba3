import type { GroupParticipantsEventV1, GroupUpdatedEventV1 } from '@jumbe/contracts';
import type { GroupEvent, SessionRef } from '@jumbe/network';

/** A group change the network reported, as the webhook event of its type (`group.participants`, `group.updated`). */
export function groupWebhookEvent(
  ref: SessionRef,
  change: GroupEvent,
  at: Date,
): GroupParticipantsEventV1 | GroupUpdatedEventV1 {
  const envelope = { timestamp: at.toISOString(), customerId: ref.accountId, sessionId: ref.sessionId };
  if (change.kind === 'participants') {
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
  return {
    event: 'group.updated',
    ...envelope,
    group: { id: change.groupId, ...change.changes, author: change.author },
  };
}
