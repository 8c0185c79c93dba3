import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/**
 * One attempt to deliver an event to a webhook (CONTRACT §6). `id` is the delivery id sent as
 * `X-Service-Delivery`; an event's opt-in retries are further attempts under the same id.
 * (`eventId`, `attempt`) is unique so a dispatcher that re-sends an attempt after another one
 * died mid-delivery records it once; manual sends (test, redeliver) have no event id.
 */
@Entity({ name: 'webhook_deliveries' })
@Index('webhook_deliveries_account_attempted_idx', ['accountId', 'attemptedAt'])
@Index('webhook_deliveries_event_attempt_key', ['eventId', 'attempt'], {
  unique: true,
  where: 'event_id IS NOT NULL',
})
export class WebhookDeliveryEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  /** 1 for the event's first POST, 2 for its first retry, … */
  @PrimaryColumn({ type: 'smallint', default: 1 })
  attempt!: number;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  @Column({ name: 'event_id', type: 'text', nullable: true })
  eventId!: string | null;

  @Column({ type: 'text' })
  event!: string;

  @Column({ name: 'session_id', type: 'text' })
  sessionId!: string;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'text' })
  status!: 'success' | 'failed';

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode!: number | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'text', nullable: true })
  response!: string | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @Column({ type: 'jsonb' })
  payload!: unknown;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'attempted_at', type: 'timestamptz' })
  attemptedAt!: Date;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;
}
