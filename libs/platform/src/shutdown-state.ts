/**
 * Whether this process has been told to stop. Process-wide, like the signal that sets it: the
 * health check reads it so readiness fails from the first moment of a graceful shutdown.
 */
class ShutdownState {
  private since: number | null = null;

  get stopping(): boolean {
    return this.since !== null;
  }

  begin(): void {
    this.since ??= Date.now();
  }
}

export const shutdownState = new ShutdownState();
