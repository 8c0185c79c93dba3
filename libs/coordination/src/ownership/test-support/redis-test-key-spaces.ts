import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';

/**
 * Test-only: hands out key prefixes that no other test run (or other test in this run) uses, so
 * that ownership tests share the real Redis without interfering, and deletes every key under them
 * at the end instead of flushing the database.
 */
export class RedisTestKeySpaces {
  private readonly runPrefix = `jumbe-test:${randomUUID()}:`;
  private issued = 0;

  /** A fresh, empty key prefix. */
  next(): string {
    this.issued += 1;
    return `${this.runPrefix}${this.issued}:`;
  }

  async deleteAll(redis: Redis): Promise<void> {
    const keys: string[] = [];
    // The run prefix is a UUID, so it has no glob characters to escape.
    for await (const batch of redis.scanStream({ match: `${this.runPrefix}*`, count: 1_000 })) {
      keys.push(...(batch as string[]));
    }
    if (keys.length > 0) await redis.del(...keys);
  }
}
