import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { SessionEntity } from './session.entity';

/**
 * One item of a session's messaging-network credentials (for Baileys: `creds` and its signal keys,
 * addressed by kind and key id). Stored in PostgreSQL so any worker that takes over the session's
 * shard can reconnect it; deleted with the session.
 */
@Entity({ name: 'network_credentials' })
export class NetworkCredentialEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @PrimaryColumn({ name: 'session_id', type: 'text' })
  sessionId!: string;

  @ManyToOne(() => SessionEntity, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'account_id', referencedColumnName: 'accountId' },
    { name: 'session_id', referencedColumnName: 'sessionId' },
  ])
  session?: SessionEntity;

  @PrimaryColumn({ type: 'text' })
  kind!: string;

  @PrimaryColumn({ name: 'key_id', type: 'text' })
  keyId!: string;

  @Column({ type: 'bytea' })
  value!: Buffer;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
