import type Redis from 'ioredis';
import type { CoordinationHealth } from './coordination-health';
import { CoordinationUnavailableError } from './coordination-unavailable-error';
import { withRedisFailuresTranslated } from './redis-connection-failure';

export const REDIS_HEALTH_TIMEOUT_MS = 1_000;

/** PINGs Redis; a reply slower than the timeout counts as unavailable (a probe must not hang). */
export class RedisCoordinationHealth implements CoordinationHealth {
  constructor(
    private readonly redis: Redis,
    private readonly timeoutMs: number = REDIS_HEALTH_TIMEOUT_MS,
  ) {}

  async check(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new CoordinationUnavailableError(`Redis did not answer PING within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      await Promise.race([withRedisFailuresTranslated('health check', () => this.redis.ping()), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
