import type { JumbeConfig } from '@jumbe/config';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The secret key the services would use: JUMBE_SECRET_KEY, else the all-in-one's generated
 * `secret.key` in the data directory. Null when neither exists (the CLI never generates one).
 */
export async function secretKeyAtHand(config: JumbeConfig): Promise<string | null> {
  if (config.secretKey !== null) return config.secretKey;
  const stored = await readFile(join(config.dataDir, 'secret.key'), 'utf8').catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    },
  );
  return stored?.trim() || null;
}
