import type { MigrationInterface, QueryRunner } from 'typeorm';

/** When each API key was last used, so customers can tell live keys from forgotten ones. */
export class ApiKeyLastUsed1764000000000 implements MigrationInterface {
  name = 'ApiKeyLastUsed1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN last_used_at`);
  }
}
