/**
 * Collects what is added during one turn of the event loop and hands it over in one call at the
 * turn's end (setImmediate): the encryptions of one send (the contact's devices and our own) all
 * finish in the same turn when their keys are cached, so their writes become one round trip.
 * Every `add` resolves (or rejects) with the flush that carried its items.
 */
export class TurnBatch<T> {
  private open: { items: T[]; flushed: Promise<void> } | null = null;

  constructor(private readonly flush: (items: T[]) => Promise<void>) {}

  add(items: T[]): Promise<void> {
    if (!this.open) {
      const batch: { items: T[]; flushed: Promise<void> } = { items: [], flushed: Promise.resolve() };
      batch.flushed = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        // Closed before the flush starts: what is added while it runs goes into the next batch.
        if (this.open === batch) this.open = null;
        return this.flush(batch.items);
      });
      this.open = batch;
    }
    this.open.items.push(...items);
    return this.open.flushed;
  }
}
