import { OperatorService } from '@jumbe/operator';
import type { Infrastructure } from '@jumbe/platform';
import type { Provider } from '@nestjs/common';
import { INFRASTRUCTURE } from '../gateway.tokens';

export const operatorServiceProvider: Provider = {
  provide: OperatorService,
  useFactory: (infrastructure: Infrastructure) =>
    new OperatorService(infrastructure.dataSource, infrastructure.invalidations),
  inject: [INFRASTRUCTURE],
};
