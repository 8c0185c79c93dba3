import { type DynamicModule, Module } from '@nestjs/common';
import type { Infrastructure } from '../infrastructure';
import { HealthController } from './health.controller';
import { HEALTH_INFRASTRUCTURE } from './health.tokens';
import { HealthService } from './health.service';

@Module({})
export class HealthModule {
  static register(infrastructure: Infrastructure): DynamicModule {
    return {
      module: HealthModule,
      controllers: [HealthController],
      providers: [{ provide: HEALTH_INFRASTRUCTURE, useValue: infrastructure }, HealthService],
    };
  }
}
