import { InitialSchema1700000000000 } from './1700000000000-initial-schema';
import { ApiKeyLastUsed1764000000000 } from './1764000000000-api-key-last-used';
import { UsageDaily1764100000000 } from './1764100000000-usage-daily';

/**
 * Every migration, oldest first, listed in code (not found by glob) for the same reason as the
 * entities. A migration name missing from this list but present in the database means a newer
 * release has migrated it (see `SchemaTooNewError`).
 */
export const ALL_MIGRATIONS = [
  InitialSchema1700000000000,
  ApiKeyLastUsed1764000000000,
  UsageDaily1764100000000,
];
