import { type DynamicModule, Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import type { HealthProbes } from './health-probes';
import { HEALTH_PROBES } from './health.tokens';
import { HealthService } from './health.service';

@Module({})
export class HealthModule {
  static register(probes: HealthProbes): DynamicModule {
    return {
      module: HealthModule,
      controllers: [HealthController],
      providers: [{ provide: HEALTH_PROBES, useValue: probes }, HealthService],
    };
  }
}
