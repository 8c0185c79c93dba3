import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Messages a session sent, kept (encrypted, for a day, bounded per session) so a recipient's
 * retry request can be answered after a restart or a hand-over: WhatsApp asks the sender to
 * re-encrypt a message its recipient could not decrypt.
 */
export class SentMessages1764100000000 implements MigrationInterface {
  name = 'SentMessages1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sent_messages (
        account_id uuid NOT NULL,
        session_id text NOT NULL,
        message_id text NOT NULL,
        value bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, session_id, message_id),
        FOREIGN KEY (account_id, session_id) REFERENCES sessions (account_id, session_id) ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX sent_messages_by_age ON sent_messages (account_id, session_id, created_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE sent_messages`);
  }
}
