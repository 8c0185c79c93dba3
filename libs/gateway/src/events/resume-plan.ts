import type { LiveEventPosition } from '../ports/live-event-feed';

/**
 * How a stream starts, told to the client in its first frame (`stream.start`):
 * - `live`: no id given; the stream starts with the next event.
 * - `complete`: every event of the account after the id given follows.
 * - `gap`: the events after the id given up to `oldestKept` are no longer kept (older than the
 *   stream keeps, or an id this stream never issued, e.g. from before an all-in-one restart); every
 *   event still kept follows, so the client knows exactly what it missed (and may re-read state).
 */
export type ResumeKind = 'live' | 'complete' | 'gap';

export interface ResumePlan {
  resume: ResumeKind;
  /** The stream sends the account's events with a sequence above this. */
  after: number;
}

export function planResume(lastSeen: number | null, position: LiveEventPosition): ResumePlan {
  if (lastSeen === null) return { resume: 'live', after: position.latest };
  const keptOnward = lastSeen + 1 >= position.oldestKept;
  if (keptOnward && lastSeen <= position.latest) return { resume: 'complete', after: lastSeen };
  return { resume: 'gap', after: position.oldestKept - 1 };
}
