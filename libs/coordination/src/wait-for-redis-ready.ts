import type Redis from 'ioredis';
import { CoordinationUnavailableError } from './coordination-unavailable-error';

/**
 * Resolves once `client` can take commands. Clients made by createRedisClient have no offline
 * queue, so a command sent while the first connection is still being made fails at once; boot
 * code and tests that need Redis right away wait here first.
 */
export function waitForRedisReady(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  if (client.status === 'end') {
    return Promise.reject(new CoordinationUnavailableError('Redis client was closed'));
  }
  return new Promise<void>((resolve, reject) => {
    const onReady = (): void => {
      clearTimeout(timer);
      client.off('end', onEnd);
      resolve();
    };
    const onEnd = (): void => {
      clearTimeout(timer);
      client.off('ready', onReady);
      reject(new CoordinationUnavailableError('Redis client was closed'));
    };
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      client.off('end', onEnd);
      reject(new CoordinationUnavailableError(`Redis not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    client.once('ready', onReady);
    client.once('end', onEnd);
  });
}
