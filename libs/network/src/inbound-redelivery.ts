/**
 * Runs a session's inbound delivery rounds one at a time. A round hands pending messages to
 * `onInbound` in order and answers false when one was refused (later messages must not overtake
 * it): the round is then retried after `retryMs`. A `kick` while a round runs makes it go once
 * more, so a message stored meanwhile is not left behind. Shared by every driver.
 */
export class InboundRedelivery {
  private running = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly round: () => Promise<boolean>,
    private readonly retryMs: number,
  ) {}

  async kick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        if (!(await this.round())) return this.retryLater();
      } while (this.again);
    } finally {
      this.running = false;
    }
  }

  /** No more rounds (the connection ended). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private retryLater(): void {
    if (this.stopped || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.kick();
    }, this.retryMs).unref();
  }
}
