/**
 * Collects what a group of concurrent tasks produce and hands it over in one call once none of
 * them is running any more (checked at the end of the event-loop turn in which the last one
 * finished, so tasks finishing or starting in that turn still join). Each task's result comes
 * back only after the call that carried what it produced has succeeded; if that call fails, every
 * task of the batch fails with it. A task that produced nothing does not wait for anything.
 *
 * Why not one batch per event-loop turn: a send's encryptions (the contact's devices and our own)
 * run side by side, but libsignal queues all work on one address in one process-wide queue, so
 * when other sessions of the worker write to the same contact, the encryptions of one send finish
 * in different turns and a per-turn batch wrote each on its own (measured: 1.98 fenced writes per
 * send to a known contact in the capacity bench, where 50 sessions share the contact). Waiting for
 * the last running one makes it one write per send however their finishes interleave.
 */
export class InFlightBatch<T> {
  /** Tasks started and not finished. */
  private running = 0;
  /** The batch the running tasks put their items into; closed when it is handed over. */
  private open: OpenBatch<T> | null = null;

  constructor(private readonly flush: (items: T[]) => Promise<void>) {}

  /** Runs `task`; its `items` go out with the batch, and its `value` comes back once they have. */
  async run<R>(task: () => Promise<{ value: R; items: T[] }>): Promise<R> {
    this.running += 1;
    const batch = (this.open ??= openBatch<T>());
    let outcome: { value: R; items: T[] };
    try {
      outcome = await task();
    } finally {
      this.finished(batch);
    }
    if (outcome.items.length === 0) return outcome.value;
    batch.items.push(...outcome.items);
    await batch.flushed;
    return outcome.value;
  }

  private finished(batch: OpenBatch<T>): void {
    this.running -= 1;
    if (this.running > 0 || batch.scheduled) return;
    batch.scheduled = true;
    // The finished task pushes its items right after this (same tick): the check runs a turn later.
    setImmediate(() => {
      batch.scheduled = false;
      // A task started meanwhile keeps the batch open; its own finish schedules the next check.
      if (this.running > 0 || this.open !== batch) return;
      this.open = null;
      if (batch.items.length === 0) return batch.settle(Promise.resolve());
      batch.settle(this.flush(batch.items));
    });
  }
}

interface OpenBatch<T> {
  items: T[];
  scheduled: boolean;
  /** Settles when the batch's items are handed over (or that failed). */
  flushed: Promise<void>;
  settle(done: Promise<void>): void;
}

function openBatch<T>(): OpenBatch<T> {
  let settle!: (done: Promise<void>) => void;
  const flushed = new Promise<void>((resolve) => {
    settle = resolve;
  });
  // A batch whose flush fails and whose every task produced nothing has no one to reject: handled.
  flushed.catch(() => undefined);
  return { items: [], scheduled: false, flushed, settle };
}
