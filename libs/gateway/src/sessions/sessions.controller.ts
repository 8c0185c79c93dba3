import {
  ApiError,
  pairingCodeSchema,
  qrQuerySchema,
  SESSIONS_PAGE_DEFAULT,
  sessionBodySchema,
  sessionQuerySchema,
  sessionsQuerySchema,
} from '@jumbe/contracts';
import { sessionView } from '@jumbe/domain';
import { Controller, Delete, Get, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import { orUnavailable } from '../http/dependency-failure';
import type { CustomerContext } from '../auth/principal';
import { Customer } from '../auth/customer.decorator';
import { ValidBody, ValidQuery } from '../http/validated-input.decorators';
import { SessionCatalogue } from '../ports/session-catalogue';
import { renderQr } from './qr-image';
import { forwardCommand } from './forward-command';
import { SessionCommandClient } from './session-command.client';

/** Session routes (CONTRACT §4): listing reads PostgreSQL; everything else goes to the owning worker. */
@Controller('api/v1')
@UseGuards(CustomerAuthGuard)
export class SessionsController {
  constructor(
    private readonly commands: SessionCommandClient,
    private readonly sessions: SessionCatalogue,
  ) {}

  /** Every session (the spec), or with `limit`/`cursor` one page of them and the next page's cursor. */
  @Get('sessions')
  async list(
    @Customer() customer: CustomerContext,
    @ValidQuery(sessionsQuerySchema) query: z.output<typeof sessionsQuerySchema>,
  ) {
    const { accountId } = customer.access;
    if (query.limit === undefined && query.cursor === undefined) {
      const records = await orUnavailable('database', () => this.sessions.list(accountId));
      return { data: records.map((record) => sessionView(record)) };
    }
    const limit = query.limit ?? SESSIONS_PAGE_DEFAULT;
    // One more than asked: whether it comes back says if there is a next page.
    const records = await orUnavailable('database', () =>
      this.sessions.listPage(accountId, query.cursor ?? null, limit + 1),
    );
    const page = records.slice(0, limit);
    const nextCursor = records.length > limit ? (page.at(-1)?.sessionId ?? null) : null;
    return { data: page.map((record) => sessionView(record)), nextCursor };
  }

  @Post('session/start')
  @HttpCode(200)
  start(
    @Customer() customer: CustomerContext,
    @ValidBody(sessionBodySchema) body: z.output<typeof sessionBodySchema>,
  ) {
    return forwardCommand(
      this.commands,
      customer,
      { type: 'session.start', sessionId: body.sessionId, maxSessions: customer.access.plan.maxSessions },
      (data) =>
        data.state === 'connected'
          ? 'Session already connected'
          : 'Session started. Poll GET /session/qr until state is qr_ready, then scan the QR.',
    );
  }

  @Get('session/status')
  status(
    @Customer() customer: CustomerContext,
    @ValidQuery(sessionQuerySchema) query: z.output<typeof sessionQuerySchema>,
  ) {
    return forwardCommand(this.commands, customer, { type: 'session.status', sessionId: query.sessionId });
  }

  @Get('session/qr')
  async qr(
    @Customer() customer: CustomerContext,
    @ValidQuery(qrQuerySchema) query: z.output<typeof qrQuerySchema>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const data = await this.commands.send(
      {
        type: 'session.qr',
        accountId: customer.access.accountId,
        sessionId: query.sessionId,
      },
      customer.requestId,
    );
    if (query.format === 'json') return { data };
    if (data.qr === '') {
      throw new ApiError(
        'not_found',
        `Session "${query.sessionId}" has no QR to show (state: ${data.state}). Start it and wait for qr_ready.`,
      );
    }
    const image = await renderQr(data.qr, query.format);
    void reply.header('content-type', image.contentType).header('cache-control', 'no-store');
    return image.body;
  }

  @Post('session/pairing-code')
  @HttpCode(200)
  pairingCode(
    @Customer() customer: CustomerContext,
    @ValidBody(pairingCodeSchema) body: z.output<typeof pairingCodeSchema>,
  ) {
    return forwardCommand(
      this.commands,
      customer,
      {
        type: 'session.pairing_code',
        sessionId: body.sessionId,
        phoneNumber: body.phoneNumber,
        maxSessions: customer.access.plan.maxSessions,
      },
      'Enter this code on the phone: Linked devices → Link with phone number.',
    );
  }

  @Post('session/logout')
  @HttpCode(200)
  logout(
    @Customer() customer: CustomerContext,
    @ValidBody(sessionBodySchema) body: z.output<typeof sessionBodySchema>,
  ) {
    return forwardCommand(
      this.commands,
      customer,
      { type: 'session.logout', sessionId: body.sessionId },
      'Session logged out; stored credentials cleared',
    );
  }

  @Delete('session')
  remove(
    @Customer() customer: CustomerContext,
    @ValidQuery(sessionQuerySchema) query: z.output<typeof sessionQuerySchema>,
  ) {
    return forwardCommand(
      this.commands,
      customer,
      { type: 'session.delete', sessionId: query.sessionId },
      'Session deleted',
    );
  }
}
