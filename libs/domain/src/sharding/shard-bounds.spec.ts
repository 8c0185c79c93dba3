import { assertValidShardCount, MAX_SHARD_COUNT } from './shard-count';
import { shardSubject } from './shard-subject';

/** The bounds a deployment's shard count and a shard number are checked against, at the edges. */
describe('shard bounds', () => {
  it.each([1, 2, 64, MAX_SHARD_COUNT])('accepts a shard count of %d', (count) => {
    expect(() => assertValidShardCount(count)).not.toThrow();
  });

  it.each([0, -1, MAX_SHARD_COUNT + 1, 1.5, Number.NaN])(
    'refuses a shard count of %d, saying why',
    (count) => {
      expect(() => assertValidShardCount(count)).toThrow(
        new RangeError(`the shard count must be an integer from 1 to ${MAX_SHARD_COUNT}, got ${count}`),
      );
    },
  );

  it('refuses a negative or fractional shard number for a subject, saying why', () => {
    expect(() => shardSubject(-1)).toThrow(new RangeError('shard must be a non-negative integer, got -1'));
    expect(() => shardSubject(0.5)).toThrow(new RangeError('shard must be a non-negative integer, got 0.5'));
    expect(shardSubject(0)).toBe('jumbe.v1.shard.0');
  });
});
