import { sessionProxyBodySchema, sessionQuerySchema } from '@jumbe/contracts';
import { Controller, Delete, Get, HttpCode, Put, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer } from '../auth/customer.decorator';
import { ValidBody, ValidQuery } from '../http/validated-input.decorators';
import { SessionProxySettings } from './session-proxy-settings';

/** A session's own proxy (CONTRACT §11, docs/session-proxy.md): set, read masked, cleared. */
@Controller('api/v1/session/proxy')
@UseGuards(CustomerAuthGuard)
export class SessionProxyController {
  constructor(private readonly settings: SessionProxySettings) {}

  @Get()
  async read(
    @Customer() customer: CustomerContext,
    @ValidQuery(sessionQuerySchema) query: z.output<typeof sessionQuerySchema>,
  ) {
    return { data: await this.settings.read(customer.access.accountId, query.sessionId) };
  }

  @Put()
  @HttpCode(200)
  set(
    @Customer() customer: CustomerContext,
    @ValidBody(sessionProxyBodySchema) body: z.output<typeof sessionProxyBodySchema>,
  ) {
    return this.settings.set(customer.access.accountId, body.sessionId, body.url, customer.requestId);
  }

  @Delete()
  clear(
    @Customer() customer: CustomerContext,
    @ValidQuery(sessionQuerySchema) query: z.output<typeof sessionQuerySchema>,
  ) {
    return this.settings.clear(customer.access.accountId, query.sessionId, customer.requestId);
  }
}
