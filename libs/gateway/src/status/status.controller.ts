import { Controller, Get, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { isIP } from 'node:net';

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

/**
 * The address and port the client reached, as this server's socket sees them: never the client's
 * `Host` header (anyone can write anything there, and the document would repeat it).
 */
function localAuthority(request: FastifyRequest): string {
  const socket = request.raw.socket;
  const address = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  return `${isIP(address) === 6 ? `[${address}]` : address}:${socket.localPort ?? 80}`;
}

/** The unauthenticated status document (spec "Service status", CONTRACT §7). */
@Controller()
export class StatusController {
  @Get(['', 'api/v1'])
  statusDocument(@Req() request: FastifyRequest) {
    return {
      service: 'jumbe',
      status: 'ok',
      baseUrl: `${request.protocol}://${localAuthority(request)}/api/v1`,
      docs: DOCUMENTED_OPERATIONS,
    };
  }
}
