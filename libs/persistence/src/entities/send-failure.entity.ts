import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { AccountEntity } from './account.entity';

/** A failed send, listed newest first by `GET /messages/failures` (CONTRACT §5). */
@Entity({ name: 'send_failures' })
@Index('send_failures_account_created_idx', ['accountId', 'createdAt'])
export class SendFailureEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  @Column({ name: 'session_id', type: 'text' })
  sessionId!: string;

  @Column({ name: 'to_address', type: 'text' })
  toAddress!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ type: 'text' })
  code!: string;

  @Column({ type: 'text' })
  message!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
