import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dashboard sessions (CONTRACT §11): signing in to `/dashboard` with a key yields a token whose
 * requests are not API hits. Only the token's hash is kept. A session belongs to the key it was
 * signed in with: a revoked key's sessions stop working at once (the lookup joins `api_keys`), and
 * go with the key or the account.
 */
export class DashboardSessions1765100000000 implements MigrationInterface {
  name = 'DashboardSessions1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE dashboard_sessions (
         id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
         account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
         key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
         token_hash text NOT NULL UNIQUE,
         created_at timestamptz NOT NULL DEFAULT now(),
         expires_at timestamptz NOT NULL
       )`,
    );
    // The account's live sessions, oldest first: the cap on sign-ins ends the oldest.
    await queryRunner.query(
      `CREATE INDEX dashboard_sessions_account_idx ON dashboard_sessions (account_id, created_at)`,
    );
    await queryRunner.query(`CREATE INDEX dashboard_sessions_key_idx ON dashboard_sessions (key_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE dashboard_sessions`);
  }
}
