import { profileUpdateSchema, sessionQuerySchema } from '@jumbe/contracts';
import { Controller, Get, Put, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer } from '../auth/customer.decorator';
import { ValidBody, ValidQuery } from '../http/validated-input.decorators';
import { forwardCommand } from '../sessions/forward-command';
import { SessionCommandClient } from '../sessions/session-command.client';

/** The number's own profile (extension): display name, about, picture. Sends no message. */
@Controller('api/v1/profile')
@UseGuards(CustomerAuthGuard)
export class ProfileController {
  constructor(private readonly commands: SessionCommandClient) {}

  @Get()
  read(
    @Customer() customer: CustomerContext,
    @ValidQuery(sessionQuerySchema) query: z.output<typeof sessionQuerySchema>,
  ) {
    return forwardCommand(this.commands, customer, { type: 'profile.read', sessionId: query.sessionId });
  }

  @Put()
  update(
    @Customer() customer: CustomerContext,
    @ValidBody(profileUpdateSchema) body: z.output<typeof profileUpdateSchema>,
  ) {
    const { sessionId, ...change } = body;
    return forwardCommand(
      this.commands,
      customer,
      { type: 'profile.update', sessionId, change },
      'Profile updated',
    );
  }
}
