import { shardSubject } from './shard-subject';

describe('shardSubject', () => {
  it('names the versioned NATS subject of a shard', () => {
    expect(shardSubject(0)).toBe('jumbe.v1.shard.0');
    expect(shardSubject(63)).toBe('jumbe.v1.shard.63');
  });

  it('rejects what is not a shard number, rather than building a wildcard-like or odd subject', () => {
    expect(() => shardSubject(-1)).toThrow(RangeError);
    expect(() => shardSubject(1.5)).toThrow(RangeError);
    expect(() => shardSubject(Number.NaN)).toThrow(RangeError);
  });
});
