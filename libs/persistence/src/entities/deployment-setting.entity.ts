import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A setting fixed when the deployment was created (e.g. `shard_count`), shared by every process. */
@Entity({ name: 'deployment_settings' })
export class DeploymentSettingEntity {
  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  value!: string;

  @Column({ name: 'set_at', type: 'timestamptz', default: () => 'now()' })
  setAt!: Date;
}
