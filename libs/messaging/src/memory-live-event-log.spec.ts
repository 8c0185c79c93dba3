import { MemoryLiveEventLog } from './memory-live-event-log';

const event = (accountId: string, id: string) => ({
  eventId: `${accountId}:main:${id}`,
  subject: `jumbe.v1.events.1.${accountId}.main`,
  payload: { id },
});

describe('MemoryLiveEventLog', () => {
  it('numbers events from the clock at start, so ids from before a restart read as older', async () => {
    const log = new MemoryLiveEventLog(10, 5_000);
    expect(await log.position()).toEqual({ oldestKept: 5_000, latest: 4_999 });
    log.append(event('a', '1'));
    expect(await log.position()).toEqual({ oldestKept: 5_000, latest: 5_000 });
    expect(new MemoryLiveEventLog().position()).resolves.toEqual(
      expect.objectContaining({ latest: expect.any(Number) }),
    );
  });

  it('keeps a re-published event once and at most its capacity, oldest dropped first', async () => {
    const log = new MemoryLiveEventLog(2, 1);
    log.append(event('a', '1'));
    log.append(event('a', '1'));
    log.append(event('a', '2'));
    log.append(event('a', '3'));
    expect(await log.position()).toEqual({ oldestKept: 2, latest: 3 });
  });

  it("hands a follower its account's events, then new ones as they come, until closed", async () => {
    const log = new MemoryLiveEventLog(10, 1);
    log.append(event('a', '1'));
    log.append(event('b', '1'));
    const cursor = await log.follow('a', 0);
    const seen: string[] = [];
    const reading = (async () => {
      for await (const kept of cursor) seen.push(kept.eventId);
    })();
    log.append(event('a', '2'));
    await new Promise((resolve) => setImmediate(resolve));
    await cursor.close();
    await reading;
    expect(seen).toEqual(['a:main:1', 'a:main:2']);
  });
});
