/** Streams one account may hold open at once on one gateway. */
export const STREAMS_PER_ACCOUNT = 5;

/** Counts each account's open streams on this gateway, so one account cannot hold them all. */
export class AccountStreamSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly perAccount: number = STREAMS_PER_ACCOUNT) {}

  /** Takes a slot: the function returned gives it back (once); null when the account has none left. */
  take(accountId: string): (() => void) | null {
    const held = this.open.get(accountId) ?? 0;
    if (held >= this.perAccount) return null;
    this.open.set(accountId, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.open.get(accountId) ?? 1) - 1;
      if (left === 0) this.open.delete(accountId);
      else this.open.set(accountId, left);
    };
  }

  held(accountId: string): number {
    return this.open.get(accountId) ?? 0;
  }
}
