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

  /** The order stored in: ties between equal arrival keys. */
  @Column({ type: 'bigint', generated: 'increment' })
  seq!: string;

  /** Where the message's stanza arrived: its socket (ms it opened), 0 for rows from before keys. */
  @Column({ name: 'arrival_socket', type: 'bigint', default: 0 })
  arrivalSocket!: string;

  /** Its place on that socket: the session's outbox is handed on in (socket, position) order. */
  @Column({ name: 'arrival_position', type: 'bigint', default: 0 })
  arrivalPosition!: string;

  @Column({ type: 'bytea' })
  value!: Buffer;

  /**
   * Set while the row stands in for a message asked for again (a retry receipt): until when (epoch
   * ms) the copy sent back is awaited; that copy takes the row (and its place) when stored.
   */
  @Column({ name: 'resend_awaited_until', type: 'bigint', nullable: true })
  resendAwaitedUntil!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
