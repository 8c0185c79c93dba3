import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/** A session's own proxy (docs/session-proxy.md): shown masked, dialled from the sealed URL only. */
@Entity({ name: 'session_proxies' })
export class SessionProxyEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  @PrimaryColumn({ name: 'session_id', type: 'text' })
  sessionId!: string;

  /** `socks5://user:****@proxy.example.com:1080`: what the API shows and logs may name. */
  @Column({ name: 'masked_url', type: 'text' })
  maskedUrl!: string;

  /** The whole URL sealed by SessionProxyVault (bound to this account and session). */
  @Column({ name: 'url_ciphertext', type: 'text' })
  urlCiphertext!: string;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
