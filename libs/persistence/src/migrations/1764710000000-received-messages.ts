import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a reply needs to quote a message (issue 12 item 6). Received messages are kept, sealed,
 * for 7 days and bounded per session (`received_messages`); a sent message's chat is kept beside
 * it (`sent_messages.chat`), so a quote is refused unless it names a message of the same chat.
 */
export class ReceivedMessages1764710000000 implements MigrationInterface {
  name = 'ReceivedMessages1764710000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE received_messages (
        account_id uuid NOT NULL,
        session_id text NOT NULL,
        message_id text NOT NULL,
        value bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, session_id, message_id),
        FOREIGN KEY (account_id, session_id) REFERENCES sessions (account_id, session_id) ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX received_messages_by_age ON received_messages (account_id, session_id, created_at)`,
    );
    // Nullable: rows written before this release have no chat (and are never quoted).
    await queryRunner.query(`ALTER TABLE sent_messages ADD COLUMN chat text NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE sent_messages DROP COLUMN chat`);
    await queryRunner.query(`DROP TABLE received_messages`);
  }
}
