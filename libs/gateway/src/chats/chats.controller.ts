import { chatPresenceSchema, chatReadSchema } from '@jumbe/contracts';
import { Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer, ValidBody } from '../http/validated-input.decorators';
import { SessionCommandClient } from '../sessions/session-command.client';

/** Chat actions (extensions): read receipts and presence. They send no message and count none. */
@Controller('api/v1/chats')
@UseGuards(CustomerAuthGuard)
export class ChatsController {
  constructor(private readonly commands: SessionCommandClient) {}

  @Post('read')
  @HttpCode(200)
  async read(
    @Customer() customer: CustomerContext,
    @ValidBody(chatReadSchema) body: z.output<typeof chatReadSchema>,
  ) {
    const data = await this.commands.send({
      type: 'chat.read',
      accountId: customer.access.accountId,
      sessionId: body.sessionId,
      chat: body.chat,
      messageIds: body.messageIds,
    });
    return { message: 'Marked as read', data };
  }

  @Post('presence')
  @HttpCode(200)
  async presence(
    @Customer() customer: CustomerContext,
    @ValidBody(chatPresenceSchema) body: z.output<typeof chatPresenceSchema>,
  ) {
    const data = await this.commands.send({
      type: 'chat.presence',
      accountId: customer.access.accountId,
      sessionId: body.sessionId,
      chat: body.chat,
      state: body.state,
    });
    return { message: 'Presence sent', data };
  }
}
