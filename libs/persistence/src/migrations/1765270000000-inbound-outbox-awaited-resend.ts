import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `inbound_outbox.resend_awaited_until`: set on a row that stands in for a message Baileys could
 * not decrypt and asked its sender for again (a retry receipt), until when (epoch ms) the copy
 * sent back is awaited. The row holds the first copy's arrival key, so the copy sent back, stored
 * under the same id, takes its place, and later messages wait for it whichever socket or worker
 * receives it (the fault schedule's seed 8: the wait was the socket's, and ended with it). NULL on
 * every message row.
 */
export class InboundOutboxAwaitedResend1765270000000 implements MigrationInterface {
  name = 'InboundOutboxAwaitedResend1765270000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE inbound_outbox ADD COLUMN resend_awaited_until bigint`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM inbound_outbox WHERE resend_awaited_until IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE inbound_outbox DROP COLUMN resend_awaited_until`);
  }
}
