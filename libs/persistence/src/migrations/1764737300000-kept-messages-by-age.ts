import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes the kept message tables by age alone, so the retention sweep (ExpiredMessageRepository)
 * finds the expired rows of every session without reading the whole table: the existing
 * `*_by_age` indexes lead with the session and serve only its own pruning.
 */
export class KeptMessagesByAge1764737300000 implements MigrationInterface {
  name = 'KeptMessagesByAge1764737300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['sent_messages', 'received_messages', 'inbound_media']) {
      await queryRunner.query(`CREATE INDEX ${table}_created_at_idx ON ${table} (created_at)`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['sent_messages', 'received_messages', 'inbound_media']) {
      await queryRunner.query(`DROP INDEX ${table}_created_at_idx`);
    }
  }
}
