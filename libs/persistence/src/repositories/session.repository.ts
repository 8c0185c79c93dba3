import type { DataSource, Repository } from 'typeorm';
import { Not } from 'typeorm';
import { SessionEntity } from '../entities/session.entity';
import { isUuid } from '../is-uuid';

/** Session records. Minimal for now: what the gateway's session cap needs. */
export class SessionRepository {
  private readonly sessions: Repository<SessionEntity>;

  constructor(dataSource: DataSource) {
    this.sessions = dataSource.getRepository(SessionEntity);
  }

  /** Sessions that count toward the plan's cap: every state but `disconnected` (CONTRACT §4). */
  async countActive(accountId: string): Promise<number> {
    if (!isUuid(accountId)) return 0;
    return this.sessions.countBy({ accountId, state: Not('disconnected') });
  }
}
