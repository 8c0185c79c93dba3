import type { SessionRecord } from '@jumbe/domain';
import type { SessionEntity } from '../entities/session.entity';

export type { SessionRecord };

/** The plain record of a stored row. */
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
