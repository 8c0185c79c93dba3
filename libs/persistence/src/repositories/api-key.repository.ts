import type { KeyScope } from '@jumbe/domain';
import type { DataSource, Repository } from 'typeorm';
import { ApiKeyEntity } from '../entities/api-key.entity';
import { isUuid } from '../is-uuid';
import { toApiKey, type ApiKey } from '../models/api-key';
import type { ActiveKey } from '@jumbe/domain';
export type { ActiveKey };

export interface NewApiKey {
  accountId: string;
  name: string | null;
  scope: KeyScope;
  /** The recognisable start of the key, shown in listings. */
  prefix: string;
  /** Hash of the whole key; the key itself is never stored (CONTRACT §3). */
  keyHash: string;
}

export class ApiKeyRepository {
  private readonly keys: Repository<ApiKeyEntity>;

  constructor(dataSource: DataSource) {
    this.keys = dataSource.getRepository(ApiKeyEntity);
  }

  async create(key: NewApiKey): Promise<ApiKey> {
    const entity = this.keys.create({ ...key, revokedAt: null, lastUsedAt: null });
    // insert() fills in the database-generated id and createdAt (RETURNING).
    await this.keys.insert(entity);
    return toApiKey(entity);
  }

  /** Records that the key was just used (never moves the time backwards). */
  async markUsed(keyId: string): Promise<void> {
    if (!isUuid(keyId)) return;
    await this.keys
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: () => 'GREATEST(COALESCE(last_used_at, now()), now())' })
      .where('id = :keyId', { keyId })
      .execute();
  }

  /** The account's keys, newest first, revoked ones included (with `revokedAt`). */
  async listByAccount(accountId: string): Promise<ApiKey[]> {
    if (!isUuid(accountId)) return [];
    const keys = await this.keys.find({ where: { accountId }, order: { createdAt: 'DESC', id: 'DESC' } });
    return keys.map(toApiKey);
  }

  /**
   * Revokes one of the account's keys. Idempotent: revoking again keeps the first `revokedAt`.
   * Null when the account has no such key (another account's key id included).
   */
  async revoke(accountId: string, keyId: string): Promise<ApiKey | null> {
    if (!isUuid(accountId) || !isUuid(keyId)) return null;
    const result = await this.keys
      .createQueryBuilder()
      .update()
      // Revoking a key whose revocation is scheduled (a rotation) brings it forward to now.
      .set({ revokedAt: () => 'LEAST(COALESCE(revoked_at, now()), now())' })
      .where('id = :keyId AND account_id = :accountId', { keyId, accountId })
      .returning('id')
      .execute();
    if (result.affected === 0) return null;
    const key = await this.keys.findOneBy({ id: keyId, accountId });
    return key ? toApiKey(key) : null;
  }

  /**
   * Schedules a key's revocation at `at` (a rotation's grace period). Stored as a future
   * `revoked_at`, so it survives restarts and needs no timer; an earlier revocation is kept.
   */
  async scheduleRevoke(accountId: string, keyId: string, at: Date): Promise<ApiKey | null> {
    if (!isUuid(accountId) || !isUuid(keyId)) return null;
    const result = await this.keys
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'LEAST(COALESCE(revoked_at, :at), :at)' })
      .setParameters({ at })
      .where('id = :keyId AND account_id = :accountId', { keyId, accountId })
      .returning('id')
      .execute();
    if (result.affected === 0) return null;
    const key = await this.keys.findOneBy({ id: keyId, accountId });
    return key ? toApiKey(key) : null;
  }

  /**
   * The key with this hash that still works (never revoked, or revoked at a time still to come):
   * the lookup behind every authenticated request.
   */
  async findActiveByHash(keyHash: string): Promise<ActiveKey | null> {
    const key = await this.keys
      .createQueryBuilder('key')
      .select(['key.id', 'key.accountId', 'key.scope', 'key.revokedAt'])
      .where('key.keyHash = :keyHash AND (key.revokedAt IS NULL OR key.revokedAt > now())', { keyHash })
      .getOne();
    return key
      ? { id: key.id, accountId: key.accountId, scope: key.scope, revokesAt: key.revokedAt ?? null }
      : null;
  }
}
