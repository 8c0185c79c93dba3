import { Column, CreateDateColumn, Entity, Generated, Index, PrimaryColumn } from 'typeorm';

/** An inbound event waiting for its delivery to be recorded (the all-in-one durable event log). */
@Entity({ name: 'inbound_events' })
@Index('inbound_events_shard_created_idx', ['shard', 'createdAt', 'seq'])
export class InboundEventEntity {
  @PrimaryColumn({ name: 'event_id', type: 'text' })
  eventId!: string;

  @Column({ type: 'smallint' })
  shard!: number;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'jsonb' })
  payload!: unknown;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** The order of appends within one multi-row write (which share `created_at`). */
  @Generated('increment')
  @Column({ type: 'bigint' })
  seq!: string;
}
