import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Opt-in webhook retries (CONTRACT §11). `webhooks.retry_attempts` is null for every existing
 * webhook, so nothing is retried unless an account asks (the spec's default). Each retry is its
 * own delivery record under the event's one delivery id, so a record is keyed by (id, attempt),
 * and an event may have one record per attempt.
 */
export class WebhookRetries1764720000000 implements MigrationInterface {
  name = 'WebhookRetries1764720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE webhooks ADD COLUMN retry_attempts smallint NULL CHECK (retry_attempts BETWEEN 1 AND 10)`,
    );
    await queryRunner.query(
      `ALTER TABLE webhook_deliveries ADD COLUMN attempt smallint NOT NULL DEFAULT 1 CHECK (attempt >= 1)`,
    );
    await queryRunner.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey`);
    await queryRunner.query(`ALTER TABLE webhook_deliveries ADD PRIMARY KEY (id, attempt)`);
    // A dispatcher that re-sends an attempt another one was making still records it once.
    await queryRunner.query(`DROP INDEX webhook_deliveries_event_id_key`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX webhook_deliveries_event_attempt_key ON webhook_deliveries (event_id, attempt) WHERE event_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM webhook_deliveries WHERE attempt > 1`);
    await queryRunner.query(`DROP INDEX webhook_deliveries_event_attempt_key`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX webhook_deliveries_event_id_key ON webhook_deliveries (event_id) WHERE event_id IS NOT NULL`,
    );
    await queryRunner.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey`);
    await queryRunner.query(`ALTER TABLE webhook_deliveries ADD PRIMARY KEY (id)`);
    await queryRunner.query(`ALTER TABLE webhook_deliveries DROP COLUMN attempt`);
    await queryRunner.query(`ALTER TABLE webhooks DROP COLUMN retry_attempts`);
  }
}
