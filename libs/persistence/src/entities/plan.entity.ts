import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from './bigint-number.transformer';

/** A commercial plan: the monthly API-hit allowance and the cap on active sessions (CONTRACT §3, §8). */
@Entity({ name: 'plans' })
export class PlanEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text', unique: true })
  name!: string;

  @Column({ name: 'monthly_api_hits', type: 'bigint', transformer: bigintNumber })
  monthlyApiHits!: number;

  @Column({ name: 'max_sessions', type: 'integer' })
  maxSessions!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
