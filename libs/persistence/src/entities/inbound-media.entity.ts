import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** How to download a received media file, sealed, kept 7 days (InboundMediaRepository). */
@Entity({ name: 'inbound_media' })
export class InboundMediaEntity {
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
