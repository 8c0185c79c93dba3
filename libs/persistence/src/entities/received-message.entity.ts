import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A received message, sealed, kept 7 days so replies can quote it (ReceivedMessageRepository). */
@Entity({ name: 'received_messages' })
export class ReceivedMessageEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @PrimaryColumn({ name: 'session_id', type: 'text' })
  sessionId!: string;

  @PrimaryColumn({ name: 'message_id', type: 'text' })
  messageId!: string;

  @Column({ type: 'bytea' })
  value!: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
