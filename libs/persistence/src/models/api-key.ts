import type { ApiKey } from '@jumbe/domain';
import type { ApiKeyEntity } from '../entities/api-key.entity';

export type { ApiKey };

/** The plain record of a stored row. */
export function toApiKey(entity: ApiKeyEntity): ApiKey {
  return {
    id: entity.id,
    accountId: entity.accountId,
    name: entity.name,
    scope: entity.scope,
    prefix: entity.prefix,
    createdAt: entity.createdAt,
    revokedAt: entity.revokedAt,
    lastUsedAt: entity.lastUsedAt ?? null,
  };
}
