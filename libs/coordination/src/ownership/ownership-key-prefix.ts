/**
 * What the Redis ownership keys start with. Production uses the default; tests pass a unique
 * prefix per run so that they share the real server without seeing each other's keys (and never
 * need FLUSHDB). A prefix should not contain `{`: the shard's hash tag must stay the first braces
 * in the key, so that a shard's lease and token keys share a cluster slot.
 */
export const DEFAULT_OWNERSHIP_KEY_PREFIX = 'jumbe:';
