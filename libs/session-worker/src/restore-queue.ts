/** One session waiting to be restored on this worker. */
export interface PendingRestore {
  /** Settles when the restore has run (or was skipped); never rejects. */
  readonly done: Promise<void>;
}

interface QueuedRestore extends PendingRestore {
  started: boolean;
  run(): void;
}

/**
 * Restores sessions at most `concurrency` at a time, oldest first, across every shard this worker
 * adopts. A command for a session still waiting is let in at once (`hurry`), so the client waits
 * for its own session, not for the thousands ahead of it.
 */
export class RestoreQueue {
  private readonly waiting: QueuedRestore[] = [];
  private running = 0;

  constructor(private readonly concurrency: number) {}

  /** Queues `restore`; it runs in its turn (or when hurried). Errors are `restore`'s to handle. */
  add(restore: () => Promise<void>): PendingRestore {
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    const entry: QueuedRestore = {
      done,
      started: false,
      run: () => {
        entry.started = true;
        this.running += 1;
        void restore()
          .catch(() => undefined)
          .finally(() => {
            this.running -= 1;
            settle();
            this.next();
          });
      },
    };
    this.waiting.push(entry);
    this.next();
    return entry;
  }

  /** Starts a queued restore now, ahead of its turn (a client is waiting for that session). */
  hurry(pending: PendingRestore): void {
    const entry = pending as QueuedRestore;
    if (entry.started) return;
    const index = this.waiting.indexOf(entry);
    if (index >= 0) this.waiting.splice(index, 1);
    entry.run();
  }

  private next(): void {
    while (this.running < this.concurrency) {
      const entry = this.waiting.shift();
      if (!entry) return;
      entry.run();
    }
  }
}
