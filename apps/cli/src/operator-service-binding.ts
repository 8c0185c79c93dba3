import { OperatorService, type OperatorPorts } from '@jumbe/operator';
import {
  AccountRepository,
  ApiKeyRepository,
  PlanRepository,
  SendFailureRepository,
  SessionRepository,
  UsageRepository,
} from '@jumbe/persistence';
import type { DataSource } from 'typeorm';

/** The operator's service on the CLI's database connection, announcing changes through `invalidations`. */
export function operatorServiceOn(
  dataSource: DataSource,
  invalidations: OperatorPorts['invalidations'],
): OperatorService {
  return new OperatorService({
    plans: new PlanRepository(dataSource),
    accounts: new AccountRepository(dataSource),
    keys: new ApiKeyRepository(dataSource),
    usage: new UsageRepository(dataSource),
    sessions: new SessionRepository(dataSource),
    failures: new SendFailureRepository(dataSource),
    invalidations,
  });
}
