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

  /** The chat it was sent to (`key.remoteJid`), so a reply quotes it only in that chat; null before 1764710000000. */
  @Column({ type: 'text', nullable: true })
  chat!: string | null;

  /** Kept until then beyond the table's day (a poll, for its votes); null: the day only. */
  @Column({ name: 'keep_until', type: 'timestamptz', nullable: true })
  keepUntil!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
