import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/**
 * The first response to a send carrying an `Idempotency-Key` (CONTRACT §5): replayed for the same
 * body within 24 h; `requestHash` detects a different body (409).
 */
@Entity({ name: 'idempotency_records' })
@Index('idempotency_records_created_at_idx', ['createdAt'])
export class IdempotencyRecordEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  @PrimaryColumn({ type: 'text' })
  key!: string;

  @Column({ name: 'request_hash', type: 'text' })
  requestHash!: string;

  @Column({ name: 'status_code', type: 'integer' })
  statusCode!: number;

  @Column({ type: 'jsonb' })
  response!: unknown;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
