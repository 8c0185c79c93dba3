import type { BaileysEventMap } from '@whiskeysockets/baileys';
import type { GroupEvent } from '../network-groups';

type ParticipantsUpdate = BaileysEventMap['group-participants.update'];
type GroupsUpdate = BaileysEventMap['groups.update'][number];

/** Baileys' `group-participants.update` as a `group.participants` change; null for number changes. */
export function participantsEventOf(update: ParticipantsUpdate): GroupEvent | null {
  if (
    update.action !== 'add' &&
    update.action !== 'remove' &&
    update.action !== 'promote' &&
    update.action !== 'demote'
  )
    return null;
  // Baileys 7 lists members as objects; earlier releases as JIDs.
  const participants = (update.participants as unknown[]).map((member) =>
    typeof member === 'string' ? member : ((member as { id?: string }).id ?? ''),
  );
  return {
    kind: 'participants',
    groupId: update.id,
    action: update.action,
    participants: participants.filter((id) => id !== ''),
    author: update.authorPn ?? (update.author || null),
  };
}

/**
 * Baileys' `groups.update` entry as a `group.updated` change; null when it changed nothing we
 * report, or when it is a whole group's metadata (Baileys re-reads all groups after a `dirty`
 * notification and emits them as updates: that is no change).
 */
export function updatedEventOf(update: GroupsUpdate): GroupEvent | null {
  if (!update.id || update.participants !== undefined) return null;
  const changes: Extract<GroupEvent, { kind: 'updated' }>['changes'] = {};
  if (update.subject !== undefined) changes.subject = update.subject;
  if ('desc' in update) changes.description = update.desc ?? null;
  if (update.announce !== undefined) changes.announcementOnly = update.announce;
  if (update.restrict !== undefined) changes.locked = update.restrict;
  if (update.inviteCode !== undefined) changes.inviteRevoked = true;
  if (Object.keys(changes).length === 0) return null;
  const author = (update as { authorPn?: string; author?: string }).authorPn ?? update.author;
  return { kind: 'updated', groupId: update.id, changes, author: author || null };
}
