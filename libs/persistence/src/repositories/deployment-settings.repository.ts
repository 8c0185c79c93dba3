import type { DataSource } from 'typeorm';

/** Settings a deployment is created with: the first value recorded for a name is kept for good. */
export class DeploymentSettingsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The value recorded for `name`, recording `proposed` if there is none yet. Processes starting
   * together all get the same answer: the first insert wins, the others read it.
   */
  async settle(name: string, proposed: string): Promise<string> {
    await this.dataSource.query(
      `INSERT INTO deployment_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
      [name, proposed],
    );
    const [row] = (await this.dataSource.query(`SELECT value FROM deployment_settings WHERE name = $1`, [
      name,
    ])) as [{ value: string }];
    return row.value;
  }
}
