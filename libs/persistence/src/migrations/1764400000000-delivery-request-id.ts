import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The X-Request-Id of the API request that asked for a delivery (`POST /webhook/test`), so a
 * support question about one call finds its attempt; null for deliveries of stream events.
 */
export class DeliveryRequestId1764400000000 implements MigrationInterface {
  name = 'DeliveryRequestId1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_deliveries ADD COLUMN request_id text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_deliveries DROP COLUMN request_id`);
  }
}
