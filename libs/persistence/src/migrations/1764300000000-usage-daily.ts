import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API hits per account and UTC day, for the usage chart. Informative only: the monthly cap is
 * enforced on `usage_counters` (through Redis), never on these rows.
 */
export class UsageDaily1764300000000 implements MigrationInterface {
  name = 'UsageDaily1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE usage_daily (
         account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
         day date NOT NULL,
         api_hits bigint NOT NULL DEFAULT 0,
         PRIMARY KEY (account_id, day)
       )`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE usage_daily`);
  }
}
