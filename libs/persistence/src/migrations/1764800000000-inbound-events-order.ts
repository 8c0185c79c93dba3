import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders the all-in-one event log within one write: appends are batched (one multi-row insert, so
 * one `created_at` for all its rows), and `seq` keeps the order they were appended in, so a
 * session's events are handed over again in order after a restart.
 */
export class InboundEventsOrder1764800000000 implements MigrationInterface {
  name = 'InboundEventsOrder1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE inbound_events ADD COLUMN seq bigserial`);
    await queryRunner.query(`DROP INDEX inbound_events_shard_created_idx`);
    await queryRunner.query(
      `CREATE INDEX inbound_events_shard_created_idx ON inbound_events (shard, created_at, seq)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX inbound_events_shard_created_idx`);
    await queryRunner.query(`ALTER TABLE inbound_events DROP COLUMN seq`);
    await queryRunner.query(
      `CREATE INDEX inbound_events_shard_created_idx ON inbound_events (shard, created_at)`,
    );
  }
}
