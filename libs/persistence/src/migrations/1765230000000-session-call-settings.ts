import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each session's calls setting (CONTRACT §11, `PUT /session/calls`): reject incoming calls, and
 * the text sent to the caller after. No row: calls ring as the spec has it. Gone with the account.
 */
export class SessionCallSettings1765230000000 implements MigrationInterface {
  name = 'SessionCallSettings1765230000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE session_call_settings (
         account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
         session_id text NOT NULL,
         reject_calls boolean NOT NULL,
         reply text NULL,
         updated_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (account_id, session_id)
       )`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE session_call_settings`);
  }
}
