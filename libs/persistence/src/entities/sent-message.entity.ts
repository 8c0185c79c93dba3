import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A message a session sent, sealed, kept a day for recipients' retry requests (SentMessageRepository). */
@Entity({ name: 'sent_messages' })
export class SentMessageEntity {
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
