// The fault schedule of `npm run chaos`: drawn from the seed alone (same seed, minutes and
// sessions → the same faults at the same offsets), so a failing run can be replayed.

/** mulberry32: a small seeded PRNG, uniform in [0, 1). Enough for a schedule; not for secrets. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Helpers over one PRNG: integers, picks, shuffles. */
export function drawer(random) {
  const between = (low, high) => low + Math.floor(random() * (high - low + 1));
  return {
    random,
    between,
    pick: (items) => items[Math.floor(random() * items.length)],
    shuffle: (items) => {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i -= 1) {
        const j = between(0, i);
        [copy[i], copy[j]] = [copy[j], copy[i]];
      }
      return copy;
    },
  };
}

/**
 * Every kind of fault, what it targets, and how long it lasts (seconds; `scale` is minutes/10
 * capped at 1, so a 2-minute run gets shorter outages and storms than a 10-minute one).
 * `durationS` is how long the fault stays before it is healed (the process restarted, the
 * dependency back, the storm over); 0 for a one-off event (a 515).
 */
export const FAULT_KINDS = {
  /** The server ends one session's stream with 515 (restart required). */
  'socket-515': { target: 'session', durationS: () => 0 },
  /** The server ends one session's stream with a condition Baileys does not know (it says 500). */
  'stream-error-unknown': { target: 'session', durationS: () => 0 },
  /** Every WhatsApp connection of one worker reset (TCP), new ones refused for a moment. */
  'tcp-reset': { target: 'worker', durationS: (d) => d.between(1, 4) },
  /**
   * One worker's WhatsApp connections stay open but nothing crosses them (the server stops
   * answering pings): Baileys notices after its keep-alive interval (30 s) + 5 s, so this lasts
   * 40–50 s whatever the run's length.
   */
  'keepalive-silence': { target: 'worker', durationS: (d) => d.between(40, 50) },
  'worker-sigkill': { target: 'worker', durationS: (d) => d.between(2, 10) },
  'worker-sigterm': { target: 'worker', durationS: (d) => d.between(2, 10) },
  'dispatcher-sigkill': { target: 'dispatcher', durationS: (d) => d.between(2, 10) },
  'dispatcher-sigterm': { target: 'dispatcher', durationS: (d) => d.between(2, 10) },
  'postgres-outage': { target: 'postgres', durationS: (d, scale) => d.between(5, outageCap(scale)) },
  'nats-outage': { target: 'nats', durationS: (d, scale) => d.between(5, outageCap(scale)) },
  'redis-outage': { target: 'redis', durationS: (d, scale) => d.between(5, outageCap(scale)) },
  /** WhatsApp refuses every login (405 or 500) and drops every connection, for 30–300 s. */
  'refusal-storm': {
    target: 'whatsapp',
    durationS: (d, scale) =>
      d.between(Math.max(10, Math.round(30 * scale)), Math.max(20, Math.round(300 * scale))),
    detail: (d) => ({ reason: d.pick([405, 500, 'unknown-stream-error']) }),
  },
  /**
   * WhatsApp raises its minimum client version: logins announcing the workers' version get 405
   * (and every stream ends) until the minimum is lifted again, which stands in for the workers
   * learning the new version (here they cannot fetch it: no web.whatsapp.com, and it is pinned).
   */
  'version-bump': {
    target: 'whatsapp',
    durationS: (d, scale) =>
      d.between(Math.max(10, Math.round(30 * scale)), Math.max(20, Math.round(120 * scale))),
  },
};

const outageCap = (scale) => Math.max(15, Math.round(60 * scale));

/** Seconds of traffic before the first fault (every session linked and quiet). */
const WARM_UP_S = 15;
/** Seconds between one fault's heal and the next fault: a random gap in this range. */
const GAP_S = [6, 20];

/**
 * The faults of a run of `minutes` on `sessions` sessions and `workers` workers, each
 * `{ index, kind, at (s from the start of traffic), durationS, target, ...detail }`, in order and
 * never overlapping (one fault at a time, so the logs say which caused what). Kinds come in a
 * seeded shuffled cycle: every kind appears before any repeats, so short runs cover many. Only
 * faults that heal before the traffic ends are kept. `kinds` limits the kinds drawn.
 */
export function drawSchedule({ seed, minutes, sessions, workers = 2, kinds = Object.keys(FAULT_KINDS) }) {
  const d = drawer(seededRandom(seed));
  const scale = Math.min(1, minutes / 10);
  const endS = minutes * 60;
  const faults = [];
  let cycle = [];
  let misses = 0;
  for (let at = WARM_UP_S; ;) {
    if (cycle.length === 0) cycle = d.shuffle(kinds);
    const kind = cycle.shift();
    const spec = FAULT_KINDS[kind];
    const durationS = spec.durationS(d, scale);
    // Too long for what is left: the next kind may fit; stop once a whole cycle's worth did not.
    if (at + durationS > endS) {
      if ((misses += 1) > kinds.length) break;
      continue;
    }
    misses = 0;
    const fault = { index: faults.length, kind, at, durationS, ...(spec.detail?.(d) ?? {}) };
    if (spec.target === 'session') fault.session = d.between(0, sessions - 1);
    if (spec.target === 'worker') fault.worker = d.between(0, workers - 1);
    faults.push(fault);
    at += durationS + d.between(GAP_S[0], GAP_S[1]);
  }
  return faults;
}
