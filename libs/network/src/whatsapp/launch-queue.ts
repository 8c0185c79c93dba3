/**
 * Spaces out the start of new sockets: when a worker takes over a shard it restores many sessions
 * at once, and after an outage every session reconnects; opening them all in the same instant
 * would hammer WhatsApp (and look like abuse). Starts run in order, at least `spacingMs` apart.
 */
export class LaunchQueue {
  private readonly waiting: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastStart = Number.NEGATIVE_INFINITY;

  constructor(private readonly spacingMs: number) {}

  get size(): number {
    return this.waiting.length;
  }

  /** Runs `start` in its turn; the returned function takes it out of the queue if it has not run. */
  schedule(start: () => void): () => void {
    this.waiting.push(start);
    this.pump();
    return () => {
      const index = this.waiting.indexOf(start);
      if (index >= 0) this.waiting.splice(index, 1);
    };
  }

  private pump(): void {
    if (this.timer !== undefined) return;
    const wait = this.lastStart + this.spacingMs - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, wait).unref();
      return;
    }
    const next = this.waiting.shift();
    if (!next) return;
    this.lastStart = Date.now();
    try {
      next();
    } finally {
      if (this.waiting.length > 0) this.pump();
    }
  }
}
