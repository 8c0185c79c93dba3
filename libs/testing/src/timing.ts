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

/** What a probe answers while the value it waits for is not there yet. */
type NotYet = false | 0 | '' | null | undefined;

/**
 * Polls `probe` until it answers with a value (anything truthy; throwing counts as not yet) and
 * returns that value, or fails after `timeoutMs`: `eventually` for a wait that yields something.
 */
export async function eventuallyValue<T>(
  what: string,
  probe: () => T | Promise<T>,
  timeoutMs = 5_000,
): Promise<Exclude<T, NotYet>> {
  let found: Exclude<T, NotYet> | undefined;
  await eventually(
    what,
    async () => {
      const value = await probe();
      if (!value) return false;
      found = value as Exclude<T, NotYet>;
      return true;
    },
    timeoutMs,
  );
  // `eventually` returned, so the probe answered with a value.
  return found as Exclude<T, NotYet>;
}

/**
 * Reads until `accept` takes the value read or `timeoutMs` passes, every `pollMs`, and returns the
 * last value either way: the caller's assertion on it then shows what was there instead. A read
 * that throws fails the wait at once.
 */
export async function lastReadWithin<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs: number,
  pollMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!accept(value) && Date.now() < deadline) {
    await delay(pollMs);
    value = await read();
  }
  return value;
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
