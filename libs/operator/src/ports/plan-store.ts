import type { Plan } from '@jumbe/domain';

export interface NewPlan {
  name: string;
  monthlyApiHits: number;
  maxSessions: number;
}

/**
 * How a plan store refuses a name another plan already has (names are how operators refer to
 * plans): it rejects with an error that carries the name.
 */
export interface DuplicatePlanName {
  duplicateName: string;
}

export function isDuplicatePlanName(error: unknown): error is DuplicatePlanName {
  return (
    typeof error === 'object' && error !== null && typeof Reflect.get(error, 'duplicateName') === 'string'
  );
}

/** The operator's plans (CONTRACT §8), shared by all accounts. */
export interface PlanStore {
  /** Rejects with a {@link DuplicatePlanName} when a plan already has this name. */
  create(plan: NewPlan): Promise<Plan>;
  list(): Promise<Plan[]>;
  findById(id: string): Promise<Plan | null>;
  findByName(name: string): Promise<Plan | null>;
  /** Null when no plan has this id. */
  update(id: string, changes: Partial<Pick<NewPlan, 'monthlyApiHits' | 'maxSessions'>>): Promise<Plan | null>;
}
