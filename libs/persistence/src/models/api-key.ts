import type { KeyScope } from '@jumbe/domain';
import type { ApiKeyEntity } from '../entities/api-key.entity';

/** An API key's public record. The hash never leaves the repository. */
export interface ApiKey {
  id: string;
  accountId: string;
  name: string | null;
  scope: KeyScope;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

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
