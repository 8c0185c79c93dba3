import { chatPresenceSchema, chatReadSchema } from '@jumbe/contracts';
import { Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer } from '../auth/customer.decorator';
import { ValidBody } from '../http/validated-input.decorators';
import { forwardCommand } from '../sessions/forward-command';
import { SessionCommandClient } from '../sessions/session-command.client';

/** Chat actions (extensions): read receipts and presence. They send no message and count none. */
@Controller('api/v1/chats')
@UseGuards(CustomerAuthGuard)
export class ChatsController {
  constructor(private readonly commands: SessionCommandClient) {}

  @Post('read')
  @HttpCode(200)
  read(
    @Customer() customer: CustomerContext,
    @ValidBody(chatReadSchema) body: z.output<typeof chatReadSchema>,
  ) {
    return forwardCommand(this.commands, customer, { type: 'chat.read', ...body }, 'Marked as read');
  }

  @Post('presence')
  @HttpCode(200)
  presence(
    @Customer() customer: CustomerContext,
    @ValidBody(chatPresenceSchema) body: z.output<typeof chatPresenceSchema>,
  ) {
    return forwardCommand(this.commands, customer, { type: 'chat.presence', ...body }, 'Presence sent');
  }
}
