import type { SessionRef } from './session.repository';

/** Saves of a session between two prunings of its old and surplus rows. */
const PRUNE_EVERY = 50;

/**
 * Counts saves per session in a bounded, expiring table, so that only every PRUNE_EVERY-th save
 * prunes: the bound costs no query per message.
 */
export class PruneSchedule {
  private readonly savesSincePrune = new Map<string, number>();

  /** Counts a save; true when it is the session's PRUNE_EVERY-th since the last pruning (the count restarts). */
  due(ref: SessionRef): boolean {
    const key = `${ref.accountId}/${ref.sessionId}`;
    const saves = (this.savesSincePrune.get(key) ?? 0) + 1;
    if (saves < PRUNE_EVERY) {
      this.savesSincePrune.set(key, saves);
      return false;
    }
    this.savesSincePrune.delete(key);
    return true;
  }
}
