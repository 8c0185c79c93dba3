import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inbound messages a worker received from WhatsApp and has not yet handed to the event stream.
 * Baileys acknowledges a message to WhatsApp before the worker sees it, so the worker writes it
 * here first: a crash, a SIGKILL or a hand-over then delays it, never loses it.
 */
export class InboundOutbox1764200000000 implements MigrationInterface {
  name = 'InboundOutbox1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE inbound_outbox (
        account_id uuid NOT NULL,
        session_id text NOT NULL,
        message_id text NOT NULL,
        seq bigserial NOT NULL,
        value bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, session_id, message_id),
        FOREIGN KEY (account_id, session_id) REFERENCES sessions (account_id, session_id) ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX inbound_outbox_in_order ON inbound_outbox (account_id, session_id, seq)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE inbound_outbox`);
  }
}
