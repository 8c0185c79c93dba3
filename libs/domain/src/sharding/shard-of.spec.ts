import { createHash } from 'node:crypto';
import { DEFAULT_SHARD_COUNT, shardCount, useShardCount } from './shard-count';
import { shardOf } from './shard-of';

describe('shardOf', () => {
  it('is pinned to known values, because changing the hash would move every session', () => {
    expect(shardOf('acc-1', 'default')).toBe(30);
    expect(shardOf('acc-1', 'sales')).toBe(43);
    expect(shardOf('3f1c2a9e-6b0d-4c1e-9a57-2d8e4f6b1c03', 'default')).toBe(22);
    expect(shardOf('acc-ü', 's_1-X')).toBe(24);
  });

  it('is the documented formula: sha256 of "<accountId>\\n<sessionId>", first 4 bytes, mod 64', () => {
    for (const [account, session] of [
      ['ab', 'c'],
      ['a', 'bc'],
      ['acc-9', 'default'],
    ] as const) {
      const digest = createHash('sha256').update(`${account}\n${session}`, 'utf8').digest();
      expect(shardOf(account, session)).toBe(digest.readUInt32BE(0) % 64);
    }
    expect(DEFAULT_SHARD_COUNT).toBe(64);
  });

  it('stays within 0..DEFAULT_SHARD_COUNT-1 and spreads sessions evenly', () => {
    const perShard = new Array<number>(DEFAULT_SHARD_COUNT).fill(0);
    const sessions = 64_00;
    for (let i = 0; i < sessions; i++) {
      const shard = shardOf(`account-${i % 97}`, `session-${i}`);
      expect(Number.isInteger(shard) && shard >= 0 && shard < DEFAULT_SHARD_COUNT).toBe(true);
      perShard[shard] = (perShard[shard] ?? 0) + 1;
    }
    // 100 expected per shard; a binomial standard deviation is ~10, so 60..140 is four sigma.
    expect(Math.min(...perShard)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...perShard)).toBeLessThanOrEqual(140);
  });

  it('spreads the sessions of a single account over many shards', () => {
    const shards = new Set(Array.from({ length: 200 }, (_, i) => shardOf('acc-big', `s${i}`)));
    expect(shards.size).toBeGreaterThan(50);
  });

  it("uses the deployment's shard count: 64 unless set at start-up, any count given explicitly", () => {
    expect(shardCount()).toBe(DEFAULT_SHARD_COUNT);
    const digest = createHash('sha256').update('acc-1\nsales', 'utf8').digest();
    expect(shardOf('acc-1', 'sales', 1_024)).toBe(digest.readUInt32BE(0) % 1_024);
    useShardCount(1_024);
    try {
      expect(shardOf('acc-1', 'sales')).toBe(digest.readUInt32BE(0) % 1_024);
    } finally {
      useShardCount(DEFAULT_SHARD_COUNT);
    }
    expect(shardOf('acc-1', 'sales')).toBe(43);
    expect(() => useShardCount(0)).toThrow(RangeError);
    expect(() => useShardCount(16_385)).toThrow(RangeError);
    expect(() => useShardCount(1.5)).toThrow(RangeError);
  });
});
