import { Telemetry } from './telemetry';

/** A Telemetry on a clock the test moves, and the number of times its registry was rendered. */
function pacedTelemetry() {
  let clock = 0;
  let renders = 0;
  const telemetry = new Telemetry({ now: () => clock, maxAgeMs: 1_000 });
  // Every rendering of the registry reads each session source once: a count of renders.
  let connected = 0;
  telemetry.watchSessions(() => {
    renders += 1;
    return new Map([['connected', connected]]);
  });
  return {
    telemetry,
    renders: () => renders,
    advance: (ms: number) => void (clock += ms),
    connect: (count: number) => void (connected = count),
  };
}

const connectedIn = (body: string) => Number(/^jumbe_sessions\{state="connected"\} (\d+)$/m.exec(body)?.[1]);

describe('/metrics rendering', () => {
  it('renders once for many concurrent scrapes, and serves that body until the interval ends', async () => {
    const paced = pacedTelemetry();
    const scrapes = await Promise.all(Array.from({ length: 20 }, () => paced.telemetry.exposition()));
    expect(paced.renders()).toBe(1);
    expect(new Set(scrapes.map((scrape) => scrape.body)).size).toBe(1);

    paced.connect(7);
    paced.advance(999);
    const cached = await paced.telemetry.exposition();
    expect(paced.renders()).toBe(1);
    expect(connectedIn(cached.body)).toBe(0);

    paced.advance(1);
    const again = await Promise.all(Array.from({ length: 20 }, () => paced.telemetry.exposition()));
    expect(paced.renders()).toBe(2);
    expect(again.map((scrape) => connectedIn(scrape.body))).toEqual(Array(20).fill(7));
  });

  it('shares a failed render with the scrapes waiting on it, and renders again at the next', async () => {
    const paced = pacedTelemetry();
    let failing = true;
    paced.telemetry.watchSessions(() => {
      if (failing) throw new Error('source broke');
      return new Map();
    });
    const failed = await Promise.allSettled(Array.from({ length: 20 }, () => paced.telemetry.exposition()));
    expect(failed.every((scrape) => scrape.status === 'rejected')).toBe(true);
    expect(paced.renders()).toBe(1);
    failing = false;
    const served = await Promise.all(Array.from({ length: 20 }, () => paced.telemetry.exposition()));
    expect(served.map((scrape) => connectedIn(scrape.body))).toEqual(Array(20).fill(0));
    expect(paced.renders()).toBe(2);
  });
});
