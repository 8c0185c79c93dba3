import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event types each webhook receives. Existing webhooks keep exactly what they received
 * before (the interface spec's `message.received`); other types are opt-in.
 */
export class WebhookEvents1764600000000 implements MigrationInterface {
  name = 'WebhookEvents1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE webhooks ADD COLUMN events text[] NOT NULL DEFAULT '{message.received}'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks DROP COLUMN events`);
  }
}
