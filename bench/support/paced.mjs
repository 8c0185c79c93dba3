// Open-loop load at a fixed rate, shared by the inbound bench's injector and its direct publisher.

/** Wall-clock milliseconds with sub-millisecond resolution (comparable across processes). */
export const now = () => performance.timeOrigin + performance.now();

/**
 * Calls `send(seq)` `rate` times a second (Infinity: as fast as `maxInFlight` calls in flight
 * allow) for `durationS`, at most `limit` calls; `send` resolves with null when accepted, or the reason it was refused
 * (counted per reason). Resolves once every call made has settled.
 */
export async function paced({ rate, durationS, maxInFlight, send, limit = Infinity }) {
  const started = now();
  const endsAt = started + durationS * 1000;
  const total = Math.min(limit, Number.isFinite(rate) ? Math.round(rate * durationS) : Infinity);
  let launched = 0;
  let inFlight = 0;
  let accepted = 0;
  const refused = {};
  await new Promise((resolve) => {
    const finishIfDone = () => {
      if ((launched >= total || now() >= endsAt) && inFlight === 0) resolve();
    };
    const launch = (seq) => {
      inFlight += 1;
      send(seq)
        .then((refusal) => {
          if (refusal === null) accepted += 1;
          else refused[refusal] = (refused[refusal] ?? 0) + 1;
        })
        .finally(() => {
          inFlight -= 1;
          if (!Number.isFinite(rate)) tick();
          finishIfDone();
        });
    };
    const tick = () => {
      const at = now();
      if (at >= endsAt || launched >= total) return finishIfDone();
      const due = Number.isFinite(rate)
        ? Math.min(total, Math.floor(((at - started) * rate) / 1000) + 1)
        : Infinity;
      while (launched < due && inFlight < maxInFlight) launch(launched++);
      if (Number.isFinite(rate)) setTimeout(tick, 1);
    };
    tick();
  });
  return { accepted, refused, seconds: (now() - started) / 1000 };
}
