import { BatchedLines } from './batched-lines';

function recordingSink() {
  const writes: string[] = [];
  let flushedSync = 0;
  return {
    writes,
    flushes: () => flushedSync,
    sink: {
      write: (text: string) => void writes.push(text),
      flushSync: () => void flushedSync++,
    },
  };
}

describe('BatchedLines', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('hands lines on as one write once a batch is full, in order', () => {
    const { sink, writes } = recordingSink();
    const lines = new BatchedLines(sink, 10, 100);
    lines.write('aaaa\n');
    lines.write('bbbb\n');
    expect(writes).toEqual(['aaaa\nbbbb\n']);
    lines.write('cc\n');
    expect(writes).toEqual(['aaaa\nbbbb\n']);
  });

  it('writes what it gathered within the interval, even a single line', () => {
    const { sink, writes } = recordingSink();
    const lines = new BatchedLines(sink, 16_000, 100);
    lines.write('only\n');
    expect(writes).toEqual([]);
    jest.advanceTimersByTime(100);
    expect(writes).toEqual(['only\n']);
    jest.advanceTimersByTime(500);
    expect(writes).toEqual(['only\n']);
  });

  it('writes everything gathered, then has the sink write synchronously, on flushSync (exit, fatal)', () => {
    const { sink, writes, flushes } = recordingSink();
    const lines = new BatchedLines(sink, 16_000, 100);
    lines.write('one\n');
    lines.write('two\n');
    lines.flushSync();
    expect(writes).toEqual(['one\ntwo\n']);
    expect(flushes()).toBe(1);
  });
});
