import { ApiError } from '@jumbe/contracts';

/**
 * A store the request path depends on (PostgreSQL, Redis) failed: the client gets 503 with a
 * Retry-After instead of a 500, since retrying shortly is the right reaction.
 */
export function unavailable(what: string): ApiError {
  return new ApiError(
    'unavailable',
    `Service temporarily unavailable (${what} unreachable). Retry shortly.`,
    undefined,
    {
      'Retry-After': '2',
    },
  );
}

export async function orUnavailable<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw Object.assign(unavailable(what), { cause: error });
  }
}
