// The verifying webhook receiver (bench/inbound-receiver.mjs) as the inbound and emulator benches read it.

/** What the receiver counted for one phase: receipts, unique, duplicates, bad signatures, latencies. */
export async function receiverStats(receiver, phase) {
  return (await fetch(`${receiver}/control/stats?phase=${encodeURIComponent(phase)}`)).json();
}

/**
 * Waits until `expected` distinct messages of the phase arrived, or none arrived for `idleMs`
 * (asking every `pollMs`); the receiver's last figures.
 */
export async function delivered(receiver, phase, expected, { idleMs = 15_000, pollMs = 200 } = {}) {
  let last = await receiverStats(receiver, phase);
  let progressAt = Date.now();
  while (last.unique < expected && Date.now() - progressAt < idleMs) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    const next = await receiverStats(receiver, phase);
    if (next.receipts !== last.receipts) progressAt = Date.now();
    last = next;
  }
  return last;
}
