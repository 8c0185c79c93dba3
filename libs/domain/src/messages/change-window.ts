/** How long after sending WhatsApp lets a message be edited (as its apps do). */
export const EDIT_WINDOW_MS = 15 * 60 * 1000;
/** How long after sending WhatsApp lets a message be deleted for everyone (2 days and 12 hours). */
export const REVOKE_WINDOW_MS = 60 * 60 * 60 * 1000;

export type MessageChange = 'edit' | 'revoke';

/** Why a sent message can no longer be changed this way, or null while it still can. */
export function changeRefusal(change: MessageChange, sentAt: Date, now: Date): string | null {
  const window = change === 'edit' ? EDIT_WINDOW_MS : REVOKE_WINDOW_MS;
  if (now.getTime() - sentAt.getTime() <= window) return null;
  const limit = change === 'edit' ? 'edited for 15 minutes' : 'deleted for everyone for 60 hours';
  return `The message was sent at ${sentAt.toISOString()}; WhatsApp lets a message be ${limit} after sending.`;
}
