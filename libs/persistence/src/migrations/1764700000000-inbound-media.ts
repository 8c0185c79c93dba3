import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a worker needs to download the file of a media message a session received (WhatsApp's
 * media key and path: sealed like the credentials), kept 7 days and bounded per session, so
 * `GET /messages/media` can fetch the file from WhatsApp's media servers on request.
 */
export class InboundMedia1764700000000 implements MigrationInterface {
  name = 'InboundMedia1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE inbound_media (
        account_id uuid NOT NULL,
        session_id text NOT NULL,
        message_id text NOT NULL,
        value bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, session_id, message_id),
        FOREIGN KEY (account_id, session_id) REFERENCES sessions (account_id, session_id) ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX inbound_media_by_age ON inbound_media (account_id, session_id, created_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE inbound_media`);
  }
}
