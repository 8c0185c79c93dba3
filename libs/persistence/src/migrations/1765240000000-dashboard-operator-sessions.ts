import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operator's dashboard sessions (CONTRACT §11): signing in to `/dashboard` with the admin token
 * yields a token for the admin routes, so the tab never keeps the admin token itself. Only the
 * token's hash is kept, with a binding to the admin token (an HMAC keyed by it, never the admin
 * token or a plain hash of it): a new JUMBE_ADMIN_TOKEN ends every operator session at once.
 */
export class DashboardOperatorSessions1765240000000 implements MigrationInterface {
  name = 'DashboardOperatorSessions1765240000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE dashboard_operator_sessions (
         id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
         token_hash text NOT NULL UNIQUE,
         admin_binding text NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         expires_at timestamptz NOT NULL
       )`,
    );
    await queryRunner.query(
      `CREATE INDEX dashboard_operator_sessions_created_idx ON dashboard_operator_sessions (created_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE dashboard_operator_sessions`);
  }
}
