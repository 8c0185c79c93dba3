/** A destination's hold on the slots: how many it holds, and who waits for one, first come first. */
interface Destination {
  held: number;
  waiting: Waiter[];
}

interface Waiter {
  admit: () => void;
  /** Arrival order over all destinations: among equals, the longest waiting goes first. */
  arrival: number;
}

/**
 * The dispatcher's POST slots, shared between destinations (the accounts' webhooks) so that none
 * can crowd out another:
 * - a destination holds at most `perDestination` slots: no more than it has connections, so a
 *   slot is never held waiting for a connection of its own, and what it cannot take is left to
 *   the others (a receiver that hangs holds its share, never the whole);
 * - a destination never holds as many slots as are left free: each takes at most half of what the
 *   others leave, so one hung receiver holds half the slots, a second a quarter, and an account
 *   that arrives while several hang still finds one free (only seven hanging at once fill 64);
 * - a freed slot goes to the waiting destination holding the fewest (then to the one waiting
 *   longest), so a busy account's backlog never queues ahead of another account's next event;
 * - one destination's waiters are admitted in their order of arrival.
 * Admission is synchronous and decided here alone; `run` wraps it around a task.
 */
export class FairSlots {
  private readonly destinations = new Map<string, Destination>();
  /** The destinations with a waiter: the only ones a freed slot can go to. */
  private readonly queued = new Set<Destination>();
  private held = 0;
  private arrivals = 0;
  private readonly perDestination: number;

  constructor(
    private readonly capacity: number,
    perDestination: number,
  ) {
    if (!(capacity >= 1 && perDestination >= 1)) throw new RangeError('FairSlots needs at least one slot');
    this.perDestination = Math.min(perDestination, capacity);
  }

  /**
   * Runs `task` once `destination` is admitted to a slot, and frees the slot when it settles.
   * Aborting `withdrawn` while it still waits gives up its turn: `task` never runs, and the
   * returned promise rejects with the signal's reason.
   */
  async run<T>(destination: string, task: () => Promise<T>, withdrawn?: AbortSignal): Promise<T> {
    await this.admission(destination, withdrawn);
    try {
      return await task();
    } finally {
      this.give(destination);
    }
  }

  /**
   * Admits `destination` to a slot now (`admit` is called at once) or queues it for its turn.
   * The function returned withdraws it from the queue: true if it was still waiting.
   */
  take(destination: string, admit: () => void): () => boolean {
    const entry = this.entryOf(destination);
    // Nobody admissible waits while a slot is free (`give` admits them), so none is passed over here.
    if (entry.waiting.length === 0 && this.admissible(entry)) {
      this.hold(entry);
      admit();
      return () => false;
    }
    const waiter: Waiter = { admit, arrival: this.arrivals++ };
    entry.waiting.push(waiter);
    this.queued.add(entry);
    return () => this.withdraw(destination, entry, waiter);
  }

  /** Frees a slot `destination` held, and admits whoever's turn it now is. */
  give(destination: string): void {
    const entry = this.destinations.get(destination);
    if (!entry || entry.held === 0) throw new Error(`no slot held for ${destination}`);
    entry.held -= 1;
    this.held -= 1;
    for (let next = this.nextInLine(); next; next = this.nextInLine()) {
      const waiter = next.waiting.shift();
      if (next.waiting.length === 0) this.queued.delete(next);
      if (!waiter) continue;
      this.hold(next);
      waiter.admit();
    }
    if (entry.held === 0 && entry.waiting.length === 0) this.destinations.delete(destination);
  }

  /** Slots held by `destination` now (0 when it holds none). */
  heldBy(destination: string): number {
    return this.destinations.get(destination)?.held ?? 0;
  }

  private admission(destination: string, withdrawn?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (withdrawn?.aborted) return reject(withdrawn.reason);
      const giveUp = () => {
        if (withdraw()) reject(withdrawn?.reason);
      };
      let admitted = false;
      const withdraw = this.take(destination, () => {
        admitted = true;
        withdrawn?.removeEventListener('abort', giveUp);
        resolve();
      });
      if (!admitted) withdrawn?.addEventListener('abort', giveUp, { once: true });
    });
  }

  /** Takes a waiter out of its destination's queue (no slot is freed by it: nobody else is admitted). */
  private withdraw(destination: string, entry: Destination, waiter: Waiter): boolean {
    const at = entry.waiting.indexOf(waiter);
    if (at < 0) return false;
    entry.waiting.splice(at, 1);
    if (entry.waiting.length > 0) return true;
    this.queued.delete(entry);
    if (entry.held === 0 && this.destinations.get(destination) === entry)
      this.destinations.delete(destination);
    return true;
  }

  /** The waiting destination a free slot goes to: the fewest held, then the longest waiting. */
  private nextInLine(): Destination | undefined {
    if (this.held >= this.capacity) return undefined;
    let best: Destination | undefined;
    for (const entry of this.queued) {
      if (!this.admissible(entry)) continue;
      const before =
        !best ||
        entry.held < best.held ||
        (entry.held === best.held && firstArrival(entry) < firstArrival(best));
      if (before) best = entry;
    }
    return best;
  }

  private admissible(entry: Destination): boolean {
    const free = this.capacity - this.held;
    return free > 0 && entry.held < this.perDestination && entry.held < free;
  }

  private hold(entry: Destination): void {
    entry.held += 1;
    this.held += 1;
  }

  private entryOf(destination: string): Destination {
    let entry = this.destinations.get(destination);
    if (!entry) {
      entry = { held: 0, waiting: [] };
      this.destinations.set(destination, entry);
    }
    return entry;
  }
}

const firstArrival = (entry: Destination): number => entry.waiting[0]?.arrival ?? Number.POSITIVE_INFINITY;
