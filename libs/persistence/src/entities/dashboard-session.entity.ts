import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';

/**
 * A dashboard sign-in with an API key (CONTRACT §11): its requests act with the key's account and
 * scope and are not API hits. Only the token's hash is kept; the row goes with its key.
 */
@Entity({ name: 'dashboard_sessions' })
export class DashboardSessionEntity {
  @PrimaryColumn({ type: 'uuid', default: () => 'gen_random_uuid()' })
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  @Column({ name: 'key_id', type: 'uuid' })
  keyId!: string;

  @ManyToOne(() => ApiKeyEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'key_id' })
  key?: ApiKeyEntity;

  /** SHA-256 of the `jds_…` token: the token itself is never stored. */
  @Column({ name: 'token_hash', type: 'text', unique: true })
  tokenHash!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
