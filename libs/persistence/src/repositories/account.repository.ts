import type { DataSource, Repository } from 'typeorm';
import { AccountEntity } from '../entities/account.entity';
import { isUuid } from '../is-uuid';
import { toAccount, type Account } from '../models/account';
import { toPlan, type Plan } from '../models/plan';
import { FOREIGN_KEY_VIOLATION, sqlState } from './postgres-errors';
import { UnknownPlanError } from './unknown-plan.error';

export interface NewAccount {
  name: string;
  planId: string;
}

export interface AccountChanges {
  planId?: string;
  suspended?: boolean;
}

/** Accounts (tenants), managed by the operator (CONTRACT §8). */
export class AccountRepository {
  private readonly accounts: Repository<AccountEntity>;

  constructor(dataSource: DataSource) {
    this.accounts = dataSource.getRepository(AccountEntity);
  }

  /** @throws UnknownPlanError when `planId` names no plan. */
  async create(account: NewAccount): Promise<Account> {
    if (!isUuid(account.planId)) throw new UnknownPlanError(account.planId);
    const entity = this.accounts.create({ name: account.name, planId: account.planId });
    try {
      // insert() fills in the database-generated id, suspended and createdAt (RETURNING).
      await this.accounts.insert(entity);
    } catch (error) {
      if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw new UnknownPlanError(account.planId);
      throw error;
    }
    return toAccount(entity);
  }

  /** Oldest first, so the listing is stable as accounts are added. */
  async list(): Promise<Account[]> {
    return (await this.accounts.find({ order: { createdAt: 'ASC', id: 'ASC' } })).map(toAccount);
  }

  async findById(id: string): Promise<Account | null> {
    if (!isUuid(id)) return null;
    const account = await this.accounts.findOneBy({ id });
    return account ? toAccount(account) : null;
  }

  /**
   * Applies the given changes; absent fields are left alone. Null when there is no such account.
   * @throws UnknownPlanError when `planId` names no plan.
   */
  async update(id: string, changes: AccountChanges): Promise<Account | null> {
    if (!isUuid(id)) return null;
    if (changes.planId !== undefined && !isUuid(changes.planId)) throw new UnknownPlanError(changes.planId);
    const set: Partial<Pick<AccountEntity, 'planId' | 'suspended'>> = {};
    if (changes.planId !== undefined) set.planId = changes.planId;
    if (changes.suspended !== undefined) set.suspended = changes.suspended;
    if (Object.keys(set).length > 0) {
      try {
        const result = await this.accounts.update({ id }, set);
        if (result.affected === 0) return null;
      } catch (error) {
        if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw new UnknownPlanError(changes.planId ?? '');
        throw error;
      }
    }
    return this.findById(id);
  }

  /** The account and its plan in one query (what authentication and quota checks need). */
  async findWithPlan(id: string): Promise<{ account: Account; plan: Plan } | null> {
    if (!isUuid(id)) return null;
    const account = await this.accounts.findOne({ where: { id }, relations: { plan: true } });
    if (!account?.plan) return null;
    return { account: toAccount(account), plan: toPlan(account.plan) };
  }
}
