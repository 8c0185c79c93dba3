import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { AccountEntity } from './account.entity';
import { bigintNumber } from './bigint-number.transformer';

/**
 * One account's counters for one billing cycle. The live counters are in Redis; this row is their
 * durable copy, written with "never lower" upserts by every gateway.
 */
@Entity({ name: 'usage_counters' })
export class UsageCounterEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  /** First day of the billing cycle (UTC), `YYYY-MM-DD`. */
  @PrimaryColumn({ name: 'period_start', type: 'date' })
  periodStart!: string;

  @Column({ name: 'api_hits', type: 'bigint', default: 0, transformer: bigintNumber })
  apiHits!: number;

  @Column({ name: 'messages_sent', type: 'bigint', default: 0, transformer: bigintNumber })
  messagesSent!: number;

  @Column({ name: 'send_failures', type: 'bigint', default: 0, transformer: bigintNumber })
  sendFailures!: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
