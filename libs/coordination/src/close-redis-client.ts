import type Redis from 'ioredis';

/**
 * Closes a client for good: QUIT when connected (pending replies arrive first), otherwise just
 * stops reconnecting. A client that already ended is left alone, because ioredis' disconnect()
 * on a closed socket arms a timer that nothing clears, delaying process exit.
 */
export async function closeRedisClient(client: Redis): Promise<void> {
  if (hasEnded(client)) return;
  try {
    await client.quit();
  } catch {
    if (!hasEnded(client)) client.disconnect();
  }
}

// A function rather than an inline comparison: the status changes across the await above.
function hasEnded(client: Redis): boolean {
  return client.status === 'end';
}
