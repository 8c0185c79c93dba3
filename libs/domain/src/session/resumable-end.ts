import type { SessionRecord } from '../records/session-record';

/**
 * End reasons of a linked session that say nothing about the link itself: WhatsApp refused the
 * connection for a while (402/406 `network_refused`), wanted a newer client version (405
 * `client_outdated`), or closed the stream with an error it did not explain (Baileys counts those
 * as 500, `bad_session`). A WhatsApp incident of a few minutes ended sessions this way for good
 * (issue 28); a worker that takes such a session over (a hand-over, a worker start) resumes it from
 * its stored credentials. Never resumed: logged out or unlinked (the credentials are void),
 * forbidden (banned), connection replaced (another client holds it), a login that timed out.
 */
export const RESUMABLE_END_REASONS: readonly string[] = ['network_refused', 'client_outdated', 'bad_session'];

/** A session stored as ended for a transient reason, still linked to its number: to resume. */
export function isResumableEnd(record: Pick<SessionRecord, 'state' | 'reason' | 'phoneNumber'>): boolean {
  return (
    record.state === 'disconnected' &&
    record.phoneNumber !== null &&
    record.reason !== null &&
    RESUMABLE_END_REASONS.includes(record.reason)
  );
}
