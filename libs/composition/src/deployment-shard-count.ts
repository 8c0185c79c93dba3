import { ConfigError } from '@jumbe/config';
import { useShardCount } from '@jumbe/domain';
import { DeploymentSettingsRepository } from '@jumbe/persistence';
import type { DataSource } from 'typeorm';

/**
 * Makes `configured` (JUMBE_SHARD_COUNT) this process's shard count if it is the one the
 * deployment was created with: the first process of a new deployment records it in PostgreSQL,
 * every later one must bring the same. Another count would send each session's commands and
 * events to a shard other processes do not put it on, so the process refuses to start (one
 * `configuration error:` line) rather than run with it.
 */
export async function adoptDeploymentShardCount(dataSource: DataSource, configured: number): Promise<void> {
  const recorded = Number(
    await new DeploymentSettingsRepository(dataSource).settle('shard_count', String(configured)),
  );
  if (recorded !== configured) {
    throw new ConfigError(
      `JUMBE_SHARD_COUNT is ${configured}, but this deployment was created with ${recorded} shards and ` +
        `the count cannot change: start every process with JUMBE_SHARD_COUNT=${recorded}`,
    );
  }
  useShardCount(configured);
}
