import type { Account } from '@jumbe/domain';
import type { AccountEntity } from '../entities/account.entity';

export type { Account };

/** The plain record of a stored row. */
export function toAccount(entity: AccountEntity): Account {
  return {
    id: entity.id,
    name: entity.name,
    planId: entity.planId,
    suspended: entity.suspended,
    createdAt: entity.createdAt,
  };
}
