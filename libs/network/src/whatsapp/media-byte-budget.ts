/** A send's hold on the worker's media budget, from before its download until the send is over. */
export interface MediaReservation {
  /** Gives back what the file turned out not to need (reserved for the largest file allowed). */
  shrinkTo(bytes: number): void;
  /** Gives the rest back; called once the send is over, whatever its outcome. Idempotent. */
  release(): void;
}

/** No room in the budget came free within the wait: the send fails with `media_busy`. */
export class MediaBudgetExhaustedError extends Error {
  override readonly name = 'MediaBudgetExhaustedError';
}

interface Waiter {
  bytes: number;
  grant: () => void;
}

/**
 * The bytes of outbound media a worker holds in memory at once, over all its sessions: a send
 * downloads the customer's file whole (and Baileys encrypts it from memory), so without a bound a
 * burst of large sends exhausted the worker's memory (issue 28). Each send reserves the largest
 * file it may download before asking for it, keeps what the file really took until the send is
 * over, and gives the rest back as soon as the file is in. A send that finds no room waits, in
 * arrival order (a large one is not starved by small ones passing it), at most the wait it is
 * given, then fails.
 */
export class MediaByteBudget {
  private used = 0;
  private readonly waiters: Waiter[] = [];

  constructor(readonly capacity: number) {
    if (!(Number.isSafeInteger(capacity) && capacity > 0)) {
      throw new RangeError(`the media budget must be a positive number of bytes, got ${capacity}`);
    }
  }

  /** Bytes reserved right now. */
  get inUse(): number {
    return this.used;
  }

  /** Reserves `bytes` (at most the whole budget), waiting at most `waitMs` for room. */
  async reserve(bytes: number, waitMs: number): Promise<MediaReservation> {
    const wanted = Math.min(Math.max(0, Math.ceil(bytes)), this.capacity);
    if (this.waiters.length === 0 && this.used + wanted <= this.capacity) {
      this.used += wanted;
    } else {
      await this.waitForRoom(wanted, waitMs);
    }
    return this.reservationOf(wanted);
  }

  private waitForRoom(bytes: number, waitMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        // The head leaving may let the next ones in.
        this.grantWaiting();
        reject(
          new MediaBudgetExhaustedError(
            `the worker holds ${this.capacity} bytes of media being sent already and none came free within ${waitMs} ms`,
          ),
        );
      }, waitMs);
      this.waiters.push(waiter);
    });
  }

  private reservationOf(reserved: number): MediaReservation {
    let held = reserved;
    const giveBack = (bytes: number) => {
      this.used -= bytes;
      held -= bytes;
      this.grantWaiting();
    };
    return {
      shrinkTo: (bytes) => {
        const keep = Math.max(0, Math.ceil(bytes));
        if (keep < held) giveBack(held - keep);
      },
      release: () => {
        if (held > 0) giveBack(held);
      },
    };
  }

  /** Lets waiters in, oldest first, for as long as the oldest fits. */
  private grantWaiting(): void {
    while (this.waiters.length > 0) {
      const next = this.waiters[0] as Waiter;
      if (this.used + next.bytes > this.capacity) return;
      this.waiters.shift();
      this.used += next.bytes;
      next.grant();
    }
  }
}
