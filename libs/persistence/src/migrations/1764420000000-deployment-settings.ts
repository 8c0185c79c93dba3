import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Settings fixed when a deployment is created, which every process must agree on (the shard
 * count). A deployment that already has sessions was created before the count was a setting,
 * with 64 shards: recorded here, so a process started with another count refuses to start
 * instead of moving every session. A fresh database records whatever its first process brings.
 */
export class DeploymentSettings1764420000000 implements MigrationInterface {
  name = 'DeploymentSettings1764420000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE deployment_settings (
         name text PRIMARY KEY,
         value text NOT NULL,
         set_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    await queryRunner.query(
      `INSERT INTO deployment_settings (name, value)
       SELECT 'shard_count', '64' WHERE EXISTS (SELECT 1 FROM sessions)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE deployment_settings`);
  }
}
