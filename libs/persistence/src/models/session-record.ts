import type { SessionState } from '@jumbe/domain';
import type { SessionEntity } from '../entities/session.entity';

/** A stored session: plain data, detached from TypeORM. */
export interface SessionRecord {
  accountId: string;
  sessionId: string;
  shard: number;
  state: SessionState;
  phoneNumber: string | null;
  reason: string | null;
  ownerToken: number;
  updatedAt: Date;
}

export function toSessionRecord(entity: SessionEntity): SessionRecord {
  return {
    accountId: entity.accountId,
    sessionId: entity.sessionId,
    shard: entity.shard,
    state: entity.state,
    phoneNumber: entity.phoneNumber,
    reason: entity.reason,
    ownerToken: entity.ownerToken,
    updatedAt: entity.updatedAt,
  };
}
