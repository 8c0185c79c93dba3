import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An operator's dashboard sign-in with the admin token. `admin_binding` ties it to that token (an
 * HMAC keyed with it), so a new `JUMBE_ADMIN_TOKEN` ends every operator session; the admin token
 * itself is stored nowhere.
 */
@Entity({ name: 'dashboard_operator_sessions' })
export class DashboardOperatorSessionEntity {
  @PrimaryColumn({ type: 'uuid', default: () => 'gen_random_uuid()' })
  id!: string;

  @Column({ name: 'token_hash', type: 'text', unique: true })
  tokenHash!: string;

  @Column({ name: 'admin_binding', type: 'text' })
  adminBinding!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
