import { SessionEntity } from '../entities/session.entity';
import { DeploymentSettingsRepository } from '../repositories/deployment-settings.repository';
import { createAccount } from '../repositories/test-support/fixtures';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { DeploymentSettings1764420000000 } from './1764420000000-deployment-settings';

describe('deployment settings migration', () => {
  let db: MigratedTestDatabase;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
  });
  afterAll(() => db.close());

  async function migrateAgain(): Promise<void> {
    const runner = db.dataSource.createQueryRunner();
    try {
      const migration = new DeploymentSettings1764420000000();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
  }

  it('leaves the shard count of a deployment without sessions to its first process', async () => {
    await db.dataSource.query(`DELETE FROM sessions`);
    await migrateAgain();
    expect(await new DeploymentSettingsRepository(db.dataSource).settle('shard_count', '1024')).toBe('1024');
  });

  it('records 64 shards for a deployment that has sessions already (created before the setting)', async () => {
    const accountId = await createAccount(db.dataSource);
    await db.dataSource
      .getRepository(SessionEntity)
      .insert({ accountId, sessionId: 'old', shard: 5, state: 'connected' });
    await migrateAgain();
    expect(await new DeploymentSettingsRepository(db.dataSource).settle('shard_count', '1024')).toBe('64');
  });
});
