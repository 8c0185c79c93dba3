import { contactBlockSchema, contactProfileQuerySchema } from '@jumbe/contracts';
import { Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { NumberLookups } from '../contacts/number-lookups';
import { Customer } from '../auth/customer.decorator';
import { ValidBody, ValidQuery } from '../http/validated-input.decorators';
import { forwardCommand } from '../sessions/forward-command';
import { SessionCommandClient } from '../sessions/session-command.client';

/** A contact's picture and about, and blocking (extensions). */
@Controller('api/v1/contacts')
@UseGuards(CustomerAuthGuard)
export class ContactProfileController {
  constructor(
    private readonly commands: SessionCommandClient,
    private readonly lookups: NumberLookups,
  ) {}

  /** Counted with `GET /contacts/check`: reading others' profiles is probing them too. */
  @Get('profile')
  async profile(
    @Customer() customer: CustomerContext,
    @ValidQuery(contactProfileQuerySchema) query: z.output<typeof contactProfileQuerySchema>,
  ) {
    const { accountId } = customer.access;
    await this.lookups.withinLimit(accountId, query.sessionId);
    return forwardCommand(this.commands, customer, {
      type: 'contact.profile',
      sessionId: query.sessionId,
      contact: query.contact,
    });
  }

  @Post('block')
  @HttpCode(200)
  block(
    @Customer() customer: CustomerContext,
    @ValidBody(contactBlockSchema) body: z.output<typeof contactBlockSchema>,
  ) {
    return this.setBlocked(customer, body, true);
  }

  @Post('unblock')
  @HttpCode(200)
  unblock(
    @Customer() customer: CustomerContext,
    @ValidBody(contactBlockSchema) body: z.output<typeof contactBlockSchema>,
  ) {
    return this.setBlocked(customer, body, false);
  }

  private setBlocked(customer: CustomerContext, body: z.output<typeof contactBlockSchema>, blocked: boolean) {
    return forwardCommand(
      this.commands,
      customer,
      { type: 'contact.block', sessionId: body.sessionId, contact: body.contact, blocked },
      blocked ? 'Contact blocked' : 'Contact unblocked',
    );
  }
}
