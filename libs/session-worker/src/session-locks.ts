/**
 * One reader/writer lock per session. NATS runs command handlers concurrently, so without it two
 * `POST /session/start` for one session (a double click, a client retry) would open two
 * connections. Lifecycle commands (start, pairing code, logout, delete, restore) take the session
 * exclusively; sends share it with each other, so they never wait behind one another, only behind
 * a lifecycle change of the same session. Locks of different sessions never wait for each other.
 */
export class SessionLocks {
  private readonly locks = new Map<string, SessionLock>();

  /** Runs `work` alone on the session: after every earlier command of it, before every later one. */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.lockOf(key).run('exclusive', work, () => this.release(key));
  }

  /** Runs `work` beside other shared work of the session, but never beside exclusive work. */
  shared<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.lockOf(key).run('shared', work, () => this.release(key));
  }

  /** Sessions with a command running or waiting (for tests and diagnostics). */
  get busy(): number {
    return this.locks.size;
  }

  private lockOf(key: string): SessionLock {
    let lock = this.locks.get(key);
    if (!lock) {
      lock = new SessionLock();
      this.locks.set(key, lock);
    }
    return lock;
  }

  private release(key: string): void {
    if (this.locks.get(key)?.idle) this.locks.delete(key);
  }
}

type Mode = 'exclusive' | 'shared';

interface Waiter {
  mode: Mode;
  wake: () => void;
}

/** A fair reader/writer lock: waiters are served in arrival order, shared ones in runs. */
class SessionLock {
  private running = 0;
  private runningMode: Mode | null = null;
  private readonly queue: Waiter[] = [];

  get idle(): boolean {
    return this.running === 0 && this.queue.length === 0;
  }

  async run<T>(mode: Mode, work: () => Promise<T>, onIdle: () => void): Promise<T> {
    await this.acquire(mode);
    try {
      return await work();
    } finally {
      this.running -= 1;
      if (this.running === 0) this.runningMode = null;
      this.wakeNext();
      onIdle();
    }
  }

  private acquire(mode: Mode): Promise<void> {
    if (this.canEnter(mode)) {
      this.enter(mode);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push({ mode, wake: resolve }));
  }

  /** Shared work joins running shared work only while nobody waits (no writer starves). */
  private canEnter(mode: Mode): boolean {
    if (this.running === 0) return this.queue.length === 0;
    return mode === 'shared' && this.runningMode === 'shared' && this.queue.length === 0;
  }

  private enter(mode: Mode): void {
    this.running += 1;
    this.runningMode = mode;
  }

  private wakeNext(): void {
    while (this.queue.length > 0) {
      const next = this.queue[0] as Waiter;
      const fits = this.running === 0 || (next.mode === 'shared' && this.runningMode === 'shared');
      if (!fits) return;
      this.queue.shift();
      this.enter(next.mode);
      next.wake();
      if (next.mode === 'exclusive') return;
    }
  }
}
