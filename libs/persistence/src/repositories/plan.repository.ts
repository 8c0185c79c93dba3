import type { DataSource, Repository } from 'typeorm';
import { PlanEntity } from '../entities/plan.entity';
import { isUuid } from '../is-uuid';
import { toPlan, type Plan } from '../models/plan';
import { DuplicateNameError } from './duplicate-name.error';
import { UNIQUE_VIOLATION, sqlState } from './postgres-errors';

export interface NewPlan {
  name: string;
  monthlyApiHits: number;
  maxSessions: number;
}

/** Plans are operator data (CONTRACT §8), shared by all accounts. */
export class PlanRepository {
  private readonly plans: Repository<PlanEntity>;

  constructor(dataSource: DataSource) {
    this.plans = dataSource.getRepository(PlanEntity);
  }

  /** @throws DuplicateNameError when a plan already has this name. */
  async create(plan: NewPlan): Promise<Plan> {
    try {
      const entity = this.plans.create(plan);
      // insert() fills in the database-generated id and createdAt (RETURNING).
      await this.plans.insert(entity);
      return toPlan(entity);
    } catch (error) {
      // Checking first would race with a concurrent create; the unique constraint cannot.
      if (sqlState(error) === UNIQUE_VIOLATION) throw new DuplicateNameError(plan.name);
      throw error;
    }
  }

  async list(): Promise<Plan[]> {
    return (await this.plans.find({ order: { name: 'ASC' } })).map(toPlan);
  }

  async findById(id: string): Promise<Plan | null> {
    if (!isUuid(id)) return null;
    const plan = await this.plans.findOneBy({ id });
    return plan ? toPlan(plan) : null;
  }

  /** Changes the plan's limits; null when no plan has this id. */
  async update(
    id: string,
    changes: Partial<Pick<NewPlan, 'monthlyApiHits' | 'maxSessions'>>,
  ): Promise<Plan | null> {
    if (!isUuid(id)) return null;
    const set: Partial<Pick<NewPlan, 'monthlyApiHits' | 'maxSessions'>> = {};
    if (changes.monthlyApiHits !== undefined) set.monthlyApiHits = changes.monthlyApiHits;
    if (changes.maxSessions !== undefined) set.maxSessions = changes.maxSessions;
    if (Object.keys(set).length > 0) {
      const result = await this.plans.update({ id }, set);
      if (result.affected === 0) return null;
    }
    return this.findById(id);
  }

  async findByName(name: string): Promise<Plan | null> {
    const plan = await this.plans.findOneBy({ name });
    return plan ? toPlan(plan) : null;
  }
}
