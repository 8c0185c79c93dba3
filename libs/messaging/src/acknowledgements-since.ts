/** A point to compare acknowledgements against: the start of one append statement. */
export interface AcknowledgementMark {
  readonly at: number;
}

/**
 * Which event ids were acknowledged since a mark was taken, kept only as long as a mark that
 * could ask is open. The all-in-one event log needs it because an append statement's "nothing
 * recorded under this id" is only as fresh as the statement's start, while an event is
 * acknowledged only after its delivery was recorded: an id acknowledged since the mark may have
 * been recorded since. Counts, not clock times, so two calls in the same millisecond are ordered.
 */
export class AcknowledgementsSince {
  private readonly acknowledgedAt = new Map<string, number>();
  private count = 0;
  private readonly open = new Set<AcknowledgementMark>();

  mark(): AcknowledgementMark {
    const mark = { at: this.count };
    this.open.add(mark);
    return mark;
  }

  /** Closes the mark and forgets what no open mark can ask about any more. */
  release(mark: AcknowledgementMark): void {
    this.open.delete(mark);
    let oldest = this.count;
    for (const { at } of this.open) oldest = Math.min(oldest, at);
    for (const [eventId, at] of this.acknowledgedAt) {
      if (at < oldest) this.acknowledgedAt.delete(eventId);
    }
  }

  /** Call before the acknowledgement's own write: the delivery was recorded before this. */
  note(eventId: string): void {
    if (this.open.size > 0) this.acknowledgedAt.set(eventId, this.count);
    this.count += 1;
  }

  acknowledgedSince(mark: AcknowledgementMark, eventId: string): boolean {
    const at = this.acknowledgedAt.get(eventId);
    return at !== undefined && at >= mark.at;
  }
}
