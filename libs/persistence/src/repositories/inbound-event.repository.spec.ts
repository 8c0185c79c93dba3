import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { InboundEventRepository } from './inbound-event.repository';

describe('InboundEventRepository', () => {
  let db: MigratedTestDatabase;
  let events: InboundEventRepository;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    events = new InboundEventRepository(db.dataSource);
  });
  afterAll(() => db.close());

  const event = (eventId: string, shard: number, text = eventId) => ({
    eventId,
    shard,
    subject: `jumbe.v1.events.${shard}.acct.main`,
    payload: { event: 'message.received', message: { id: eventId, text } },
  });

  it('appends an event once: a second append with the same id is refused and changes nothing', async () => {
    expect(await events.append(event('dup', 1, 'first'))).toBe(true);
    expect(await events.append(event('dup', 1, 'second'))).toBe(false);
    expect(await events.pending(1)).toEqual([
      {
        eventId: 'dup',
        subject: 'jumbe.v1.events.1.acct.main',
        payload: { event: 'message.received', message: { id: 'dup', text: 'first' } },
      },
    ]);
  });

  it("lists only the shard's events, oldest first (not by id)", async () => {
    for (const id of ['s2-c', 's2-a', 's3-x', 's2-b'])
      await events.append(event(id, id.startsWith('s2') ? 2 : 3));
    expect((await events.pending(2)).map((e) => e.eventId)).toEqual(['s2-c', 's2-a', 's2-b']);
    expect((await events.pending(3)).map((e) => e.eventId)).toEqual(['s3-x']);
    expect(await events.pending(4)).toEqual([]);
  });

  it('appends many in one write, handed over again in the order given (not by id), each id once', async () => {
    await events.append(event('b6-old', 6));
    const appended = await events.appendAll([
      event('b6-z', 6),
      event('b6-old', 6, 'again'),
      event('b6-a', 6),
      event('b6-z', 6, 'copy'),
      event('b6-m', 6),
    ]);
    expect(appended.map((outcome) => outcome.stored)).toEqual([true, false, true, false, true]);
    // Nothing was ever delivered under these ids.
    expect(appended.filter((outcome) => outcome.stored).every((outcome) => outcome.unrecorded)).toBe(true);
    expect((await events.pending(6)).map((e) => e.eventId)).toEqual(['b6-old', 'b6-z', 'b6-a', 'b6-m']);
    expect((await events.pending(6)).find((e) => e.eventId === 'b6-z')?.payload).toMatchObject({
      message: { text: 'b6-z' },
    });
    expect(await events.appendAll([])).toEqual([]);
  });

  it('removes delivered events in one go; removing them again does nothing', async () => {
    await events.append(event('gone', 5));
    await events.append(event('gone-too', 5));
    await events.append(event('stays', 5));
    await events.removeAll(['gone', 'gone-too']);
    expect((await events.pending(5)).map((e) => e.eventId)).toEqual(['stays']);
    await expect(events.removeAll(['gone'])).resolves.toBeUndefined();
    await expect(events.removeAll([])).resolves.toBeUndefined();
  });
});
