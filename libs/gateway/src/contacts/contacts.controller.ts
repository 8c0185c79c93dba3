import { contactCheckQuerySchema } from '@jumbe/contracts';
import { Controller, Get, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer } from '../auth/customer.decorator';
import { ValidQuery } from '../http/validated-input.decorators';
import { NumberLookups } from './number-lookups';

/** `GET /contacts/check` (extension): whether a number is on WhatsApp, and the id to send it to. */
@Controller('api/v1/contacts')
@UseGuards(CustomerAuthGuard)
export class ContactsController {
  constructor(private readonly lookups: NumberLookups) {}

  @Get('check')
  async check(
    @Customer() customer: CustomerContext,
    @ValidQuery(contactCheckQuerySchema) query: z.output<typeof contactCheckQuerySchema>,
  ) {
    return { data: await this.lookups.check(customer.access.accountId, query.sessionId, query.phoneNumber) };
  }
}
