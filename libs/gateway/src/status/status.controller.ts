import { Controller, Get, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HealthService } from './health.service';

/** The operations the status document lists (spec "Service status", CONTRACT §7). */
const DOCUMENTED_OPERATIONS = {
  health: 'GET /api/v1/health',
  startSession: 'POST /api/v1/session/start',
  getStatus: 'GET /api/v1/session/status',
  getQr: 'GET /api/v1/session/qr',
  requestPairingCode: 'POST /api/v1/session/pairing-code',
  logout: 'POST /api/v1/session/logout',
  listSessions: 'GET /api/v1/sessions',
  sendText: 'POST /api/v1/messages/text',
  sendMedia: 'POST /api/v1/messages/media',
  sendInteractive: 'POST /api/v1/messages/interactive',
  getWebhook: 'GET /api/v1/webhook',
  updateWebhook: 'PATCH /api/v1/webhook',
  testWebhook: 'POST /api/v1/webhook/test',
  usage: 'GET /api/v1/usage',
  openapi: 'GET /api/v1/openapi.json',
  humanDocs: 'GET /docs',
};

/** Unauthenticated routes: the status document and the health check. */
@Controller()
export class StatusController {
  constructor(private readonly health: HealthService) {}

  @Get(['', 'api/v1'])
  statusDocument(@Req() request: FastifyRequest) {
    return {
      service: 'jumbe',
      status: 'ok',
      baseUrl: `${request.protocol}://${request.host}/api/v1`,
      docs: DOCUMENTED_OPERATIONS,
    };
  }

  @Get('api/v1/health')
  async healthCheck(@Res({ passthrough: true }) reply: FastifyReply) {
    const report = await this.health.report();
    if (report.status !== 'ok') void reply.status(503);
    return report;
  }
}
