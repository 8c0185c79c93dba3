import type { AccountEntity } from '../entities/account.entity';

/** An account as the services see it: plain data, detached from TypeORM. */
export interface Account {
  id: string;
  name: string;
  planId: string;
  suspended: boolean;
  createdAt: Date;
}

export function toAccount(entity: AccountEntity): Account {
  return {
    id: entity.id,
    name: entity.name,
    planId: entity.planId,
    suspended: entity.suspended,
    createdAt: entity.createdAt,
  };
}
