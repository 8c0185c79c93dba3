import type { SessionState } from '@jumbe/domain';
import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { AccountEntity } from './account.entity';
import { bigintNumber } from './bigint-number.transformer';

/**
 * A session an account has started (CONTRACT §4). Session ids are per account, hence the composite
 * key. `ownerToken` is the fencing token of the worker that last wrote the row, so a worker that
 * lost its shard lease cannot overwrite the new owner's state.
 */
@Entity({ name: 'sessions' })
@Index('sessions_connected_phone_number_key', ['phoneNumber'], {
  unique: true,
  where: `state IN ('connecting', 'connected') AND phone_number IS NOT NULL`,
})
export class SessionEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  @PrimaryColumn({ name: 'session_id', type: 'text' })
  sessionId!: string;

  /** The virtual shard the session hashes to (`shardOf`), so a new owner finds its sessions. */
  @Column({ type: 'smallint' })
  shard!: number;

  @Column({ type: 'text' })
  state!: SessionState;

  @Column({ name: 'phone_number', type: 'text', nullable: true })
  phoneNumber!: string | null;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ name: 'owner_token', type: 'bigint', default: 0, transformer: bigintNumber })
  ownerToken!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
