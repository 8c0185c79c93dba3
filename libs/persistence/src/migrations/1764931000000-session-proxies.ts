import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each session's own proxy (CONTRACT §11, docs/session-proxy.md), kept apart from `sessions`
 * because it may be set before the session is first started. The URL is sealed (its password
 * with it); the masked form is what the API shows. Gone with the account.
 */
export class SessionProxies1764931000000 implements MigrationInterface {
  name = 'SessionProxies1764931000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE session_proxies (
         account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
         session_id text NOT NULL,
         masked_url text NOT NULL,
         url_ciphertext text NOT NULL,
         updated_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (account_id, session_id)
       )`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE session_proxies`);
  }
}
