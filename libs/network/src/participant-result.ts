import type { ParticipantAction, ParticipantResult } from '@jumbe/contracts';

/**
 * One participant's outcome from WhatsApp's per-participant status (Baileys'
 * `groupParticipantsUpdate` answers `{ status: "200" | "403" | … }` for each): 200 is done, the
 * rest are refusals named by what the caller can do about them.
 */
export function participantResult(
  participant: string,
  status: number,
  action: ParticipantAction,
): ParticipantResult {
  if (status >= 200 && status < 300) return { participant, ok: true, status, reason: null };
  return { participant, ok: false, status, reason: refusalOf(status, action) };
}

function refusalOf(status: number, action: ParticipantAction): ParticipantResult['reason'] {
  switch (status) {
    // Their privacy settings refuse adds by this number: send them the invite link instead.
    case 403:
      return action === 'add' ? 'not_allowed' : 'not_authorized';
    case 404:
      return 'not_found';
    // Adding someone already in the group (removing/promoting someone not in it answers 404).
    case 409:
      return action === 'add' ? 'already_member' : 'refused';
    // They left the group recently; WhatsApp refuses to add them back for a while.
    case 408:
      return 'recently_left';
    case 401:
      return 'not_authorized';
    default:
      return 'refused';
  }
}
