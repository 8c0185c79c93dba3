import type { PlanEntity } from '../entities/plan.entity';

/** A plan as the services see it: plain data, detached from TypeORM. */
export interface Plan {
  id: string;
  name: string;
  monthlyApiHits: number;
  maxSessions: number;
  createdAt: Date;
}

export function toPlan(entity: PlanEntity): Plan {
  return {
    id: entity.id,
    name: entity.name,
    monthlyApiHits: entity.monthlyApiHits,
    maxSessions: entity.maxSessions,
    createdAt: entity.createdAt,
  };
}
