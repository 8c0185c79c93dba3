import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `sent_messages.keep_until`: a sent message kept beyond the table's day, until then. A poll's
 * creation message holds the secret its votes are encrypted with, so it is kept 30 days
 * (CONTRACT §11, `message.poll_vote`); every other row stays NULL and goes after its day.
 */
export class SentMessagesKeepUntil1765250000000 implements MigrationInterface {
  name = 'SentMessagesKeepUntil1765250000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE sent_messages ADD COLUMN keep_until timestamptz NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE sent_messages DROP COLUMN keep_until`);
  }
}
