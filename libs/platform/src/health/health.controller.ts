import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HealthService } from './health.service';

/** `GET /api/v1/health` (no key): every service answers it about the dependencies it uses. */
@Controller('api/v1/health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  async check(@Res({ passthrough: true }) reply: FastifyReply) {
    const report = await this.health.report();
    if (report.status !== 'ok') void reply.status(503);
    return report;
  }
}
