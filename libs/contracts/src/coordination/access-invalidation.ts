import { z } from 'zod';

/**
 * Published when access data changes (a key revoked, an account suspended or moved to another
 * plan, a plan edited, a webhook saved) so every process drops its cached copy at once.
 */
export const ACCESS_INVALIDATION_TOPIC = 'jumbe:access-invalidation';

export const accessInvalidationSchema = z.discriminatedUnion('kind', [
  z.object({ v: z.literal(1), kind: z.literal('key'), keyId: z.string() }),
  z.object({ v: z.literal(1), kind: z.literal('account'), accountId: z.string() }),
  z.object({ v: z.literal(1), kind: z.literal('plan'), planId: z.string() }),
  // The account's webhook changed (URL, enabled, secret): dispatchers use the new one at once.
  z.object({ v: z.literal(1), kind: z.literal('webhook'), accountId: z.string() }),
]);

export type AccessInvalidation = z.output<typeof accessInvalidationSchema>;

export function encodeAccessInvalidation(message: AccessInvalidation): string {
  return JSON.stringify(message);
}

/** Null for a message this version does not understand (a newer publisher): callers then drop everything. */
export function decodeAccessInvalidation(text: string): AccessInvalidation | null {
  try {
    const result = accessInvalidationSchema.safeParse(JSON.parse(text));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}
