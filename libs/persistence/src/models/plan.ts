import type { Plan } from '@jumbe/domain';
import type { PlanEntity } from '../entities/plan.entity';

export type { Plan };

/** The plain record of a stored row. */
export function toPlan(entity: PlanEntity): Plan {
  return {
    id: entity.id,
    name: entity.name,
    monthlyApiHits: entity.monthlyApiHits,
    maxSessions: entity.maxSessions,
    createdAt: entity.createdAt,
  };
}
