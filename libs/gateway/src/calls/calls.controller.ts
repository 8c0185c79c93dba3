import { callSettingsBodySchema, sessionQuerySchema } from '@jumbe/contracts';
import { Controller, Get, Put, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer } from '../auth/customer.decorator';
import { ValidBody, ValidQuery } from '../http/validated-input.decorators';
import { forwardCommand } from '../sessions/forward-command';
import { SessionCommandClient } from '../sessions/session-command.client';

/**
 * A session's calls setting (CONTRACT §11): reject incoming calls by itself, and send the caller a
 * text after. Kept by the worker that owns the session, which answers the calls.
 */
@Controller('api/v1/session/calls')
@UseGuards(CustomerAuthGuard)
export class CallsController {
  constructor(private readonly commands: SessionCommandClient) {}

  @Get()
  read(
    @Customer() customer: CustomerContext,
    @ValidQuery(sessionQuerySchema) query: z.output<typeof sessionQuerySchema>,
  ) {
    return forwardCommand(this.commands, customer, {
      type: 'calls.settings.read',
      sessionId: query.sessionId,
    });
  }

  @Put()
  update(
    @Customer() customer: CustomerContext,
    @ValidBody(callSettingsBodySchema) body: z.output<typeof callSettingsBodySchema>,
  ) {
    return forwardCommand(
      this.commands,
      customer,
      {
        type: 'calls.settings.update',
        sessionId: body.sessionId,
        rejectCalls: body.rejectCalls,
        reply: body.reply ?? null,
      },
      'Calls setting saved',
    );
  }
}
