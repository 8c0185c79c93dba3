import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/** How a session answers calls (`PUT /session/calls`): rejected automatically, with an optional reply. */
@Entity({ name: 'session_call_settings' })
export class SessionCallSettingsEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  @PrimaryColumn({ name: 'session_id', type: 'text' })
  sessionId!: string;

  @Column({ name: 'reject_calls', type: 'boolean' })
  rejectCalls!: boolean;

  @Column({ name: 'reply', type: 'text', nullable: true })
  reply!: string | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
