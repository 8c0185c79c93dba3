import type { DataSource, Repository } from 'typeorm';
import { SendFailureEntity } from '../entities/send-failure.entity';
import { isUuid } from '../is-uuid';
import type { NewSendFailure, SendFailure } from '@jumbe/domain';
export type { NewSendFailure, SendFailure };

/** The failed-send log (CONTRACT §5): every failed send, listed newest first. */
export class SendFailureRepository {
  private readonly failures: Repository<SendFailureEntity>;

  constructor(dataSource: DataSource) {
    this.failures = dataSource.getRepository(SendFailureEntity);
  }

  async record(failure: NewSendFailure): Promise<void> {
    await this.failures.insert({ ...failure, toAddress: failure.to ?? '' });
  }

  async list(accountId: string, options: { sessionId?: string; limit: number }): Promise<SendFailure[]> {
    if (!isUuid(accountId)) return [];
    const entities = await this.failures.find({
      where: { accountId, ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }) },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: options.limit,
    });
    return entities.map((entity) => ({
      id: entity.id,
      accountId: entity.accountId,
      sessionId: entity.sessionId,
      to: entity.toAddress === '' ? null : entity.toAddress,
      type: entity.type,
      code: entity.code,
      message: entity.message,
      createdAt: entity.createdAt,
    }));
  }
}
