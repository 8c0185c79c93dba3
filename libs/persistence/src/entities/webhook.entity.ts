import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/**
 * An account's single webhook destination (CONTRACT §6). The signing secret must be shown to the
 * receiver's code, so it cannot be hashed: it is stored encrypted and only its ciphertext is here.
 * So is a URL that carries credentials: `url` then holds its masked form, `urlCiphertext` the rest.
 */
@Entity({ name: 'webhooks' })
export class WebhookEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @OneToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  @Column({ type: 'text' })
  url!: string;

  @Column({ name: 'url_ciphertext', type: 'text', nullable: true })
  urlCiphertext!: string | null;

  @Column({ type: 'boolean' })
  enabled!: boolean;

  @Column({ name: 'secret_ciphertext', type: 'text', nullable: true })
  secretCiphertext!: string | null;

  /** Event types delivered; the spec's default until the account chooses (`webhook.test` always goes). */
  @Column({ type: 'text', array: true, default: () => `'{message.received}'` })
  events!: string[];

  /** Retries of a failed event (1–10); null: none, as the spec says. */
  @Column({ name: 'retry_attempts', type: 'smallint', nullable: true })
  retryAttempts!: number | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
