import { profileUpdateSchema, sessionQuerySchema } from '@jumbe/contracts';
import { Controller, Get, Put, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer, ValidBody, ValidQuery } from '../http/validated-input.decorators';
import { SessionCommandClient } from '../sessions/session-command.client';

/** The number's own profile (extension): display name, about, picture. Sends no message. */
@Controller('api/v1/profile')
@UseGuards(CustomerAuthGuard)
export class ProfileController {
  constructor(private readonly commands: SessionCommandClient) {}

  @Get()
  async read(
    @Customer() customer: CustomerContext,
    @ValidQuery(sessionQuerySchema) query: z.output<typeof sessionQuerySchema>,
  ) {
    const data = await this.commands.send(
      { type: 'profile.read', accountId: customer.access.accountId, sessionId: query.sessionId },
      customer.requestId,
    );
    return { data };
  }

  @Put()
  async update(
    @Customer() customer: CustomerContext,
    @ValidBody(profileUpdateSchema) body: z.output<typeof profileUpdateSchema>,
  ) {
    const { sessionId, ...change } = body;
    const data = await this.commands.send(
      { type: 'profile.update', accountId: customer.access.accountId, sessionId, change },
      customer.requestId,
    );
    return { message: 'Profile updated', data };
  }
}
