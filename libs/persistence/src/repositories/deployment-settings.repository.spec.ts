import { randomUUID } from 'node:crypto';
import { openMigratedTestDatabase, type MigratedTestDatabase } from '../testing/migrated-test-database';
import { DeploymentSettingsRepository } from './deployment-settings.repository';

describe('DeploymentSettingsRepository', () => {
  let db: MigratedTestDatabase;
  let settings: DeploymentSettingsRepository;

  beforeAll(async () => {
    db = await openMigratedTestDatabase();
    settings = new DeploymentSettingsRepository(db.dataSource);
  });
  afterAll(() => db.close());

  it('records the first value proposed for a name and keeps it against any later one', async () => {
    const name = `setting-${randomUUID()}`;
    expect(await settings.settle(name, '1024')).toBe('1024');
    expect(await settings.settle(name, '64')).toBe('1024');
  });

  it('gives processes starting together one answer, whichever proposed first', async () => {
    const name = `setting-${randomUUID()}`;
    const answers = await Promise.all(['8', '16', '32', '64'].map((value) => settings.settle(name, value)));
    expect(new Set(answers).size).toBe(1);
  });
});
