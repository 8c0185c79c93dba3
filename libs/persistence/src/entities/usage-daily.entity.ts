import { Column, Entity, PrimaryColumn } from 'typeorm';

/** API hits of one account on one UTC day, for the usage chart (never used to enforce the cap). */
@Entity({ name: 'usage_daily' })
export class UsageDailyEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @PrimaryColumn({ type: 'date' })
  day!: string;

  @Column({ name: 'api_hits', type: 'bigint', default: 0 })
  apiHits!: string;
}
