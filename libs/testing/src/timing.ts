/** Waiting helpers for tests against real servers (shared by the libs' unit tests and e2e). */

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` until it holds (throwing counts as not yet) or `timeoutMs` passes. */
export async function eventually(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await condition()) return;
    } catch {
      // Not yet: a failing probe counts as "condition not met".
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

/** Runs `operation`, expecting it to fail; returns the error and how long failing took. */
export async function failureOf(operation: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await operation();
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  throw new Error('expected the operation to fail');
}
