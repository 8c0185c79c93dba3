import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A received message, sealed, waiting for the event stream (InboundOutboxRepository). */
@Entity({ name: 'inbound_outbox' })
export class InboundOutboxEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @PrimaryColumn({ name: 'session_id', type: 'text' })
  sessionId!: string;

  @PrimaryColumn({ name: 'message_id', type: 'text' })
  messageId!: string;

  /** Arrival order within the session. */
  @Column({ type: 'bigint', generated: 'increment' })
  seq!: string;

  @Column({ type: 'bytea' })
  value!: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
