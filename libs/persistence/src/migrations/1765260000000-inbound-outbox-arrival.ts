import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `inbound_outbox.arrival_socket` and `arrival_position`: where a received message's stanza came
 * in (the socket, by when it opened, and its place on it). The worker stores a message as soon as
 * Baileys emits it, which may be before an earlier arrival (Baileys processes the offline backlog
 * in a queue of its own), and hands the outbox on in this order instead of holding messages in
 * memory, where a SIGKILL lost them (issue 28). Rows stored before (0, 0) come first, in `seq`.
 */
export class InboundOutboxArrival1765260000000 implements MigrationInterface {
  name = 'InboundOutboxArrival1765260000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE inbound_outbox
      ADD COLUMN arrival_socket bigint NOT NULL DEFAULT 0,
      ADD COLUMN arrival_position bigint NOT NULL DEFAULT 0`);
    await queryRunner.query(`DROP INDEX inbound_outbox_in_order`);
    await queryRunner.query(
      `CREATE INDEX inbound_outbox_in_order ON inbound_outbox (account_id, session_id, arrival_socket, arrival_position, seq)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX inbound_outbox_in_order`);
    await queryRunner.query(
      `CREATE INDEX inbound_outbox_in_order ON inbound_outbox (account_id, session_id, seq)`,
    );
    await queryRunner.query(
      `ALTER TABLE inbound_outbox DROP COLUMN arrival_socket, DROP COLUMN arrival_position`,
    );
  }
}
