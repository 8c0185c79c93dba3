import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { InboundEventRepository } from '../repositories/inbound-event.repository';
import { storableParameter, storableText } from './storable-text';

describe('storableText', () => {
  it('replaces U+0000 and lone surrogates with U+FFFD, and leaves everything else alone', () => {
    expect(storableText('nul\u0000here')).toBe('nul\uFFFDhere');
    expect(storableText('lone \uD83D end')).toBe('lone \uFFFD end');
    expect(storableText('lone \uDE00 low')).toBe('lone \uFFFD low');
    expect(storableText('pair 😀 kept, Habari ✓')).toBe('pair 😀 kept, Habari ✓');
    expect(storableText('a literal \\u0000 in plain text')).toBe('a literal \\u0000 in plain text');
  });

  it('replaces the JSON escapes jsonb refuses, not escaped backslashes', () => {
    const json = JSON.stringify({ text: 'nul\u0000 and \uD83D', literal: '\\u0000' });
    expect(JSON.parse(storableText(json))).toEqual({ text: 'nul\uFFFD and \uFFFD', literal: '\\u0000' });
  });

  it('makes arrays and objects sent as JSON storable too', () => {
    expect(storableParameter(['a\u0000', 1])).toEqual(['a\uFFFD', 1]);
    expect(JSON.parse(storableParameter({ text: 'x\u0000' }) as string)).toEqual({ text: 'x\uFFFD' });
    const bytes = Buffer.from([0, 1, 2]);
    expect(storableParameter(bytes)).toBe(bytes);
  });
});

describe('every value bound to a query reaches PostgreSQL storable', () => {
  let db: MigratedTestDatabase;
  beforeAll(async () => {
    db = await openMigratedTestDatabase();
  });
  afterAll(() => db.close());

  it('stores an inbound event whose text has a NUL and a lone surrogate (jsonb refused it before)', async () => {
    const events = new InboundEventRepository(db.dataSource);
    await events.append({
      eventId: 'evt-poison',
      shard: 3,
      subject: 'events.3',
      payload: { message: { text: 'nul\u0000here \uD83D' } },
    });
    const [stored] = await events.pending(3);
    expect(stored?.payload).toEqual({ message: { text: 'nul\uFFFDhere \uFFFD' } });
  });

  it('stores text columns with a NUL (text refused it before)', async () => {
    const [row] = (await db.dataSource.query('SELECT $1::text AS value', ['a\u0000b'])) as {
      value: string;
    }[];
    expect(row?.value).toBe('a\uFFFDb');
  });
});
