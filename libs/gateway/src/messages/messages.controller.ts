import { failuresQuerySchema } from '@jumbe/contracts';
import { Body, Controller, Get, Headers, Post, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import { orUnavailable } from '../auth/dependency-failure';
import type { CustomerContext } from '../auth/principal';
import { Customer, ValidQuery } from '../http/validated-input.decorators';
import { SendFailureLog } from '../ports/send-failure-log';
import { MessageSender, type MessageKind } from './message-sender';

/** Message routes (CONTRACT §5). Bodies are validated by MessageSender so failures are logged. */
@Controller('api/v1/messages')
@UseGuards(CustomerAuthGuard)
export class MessagesController {
  constructor(
    private readonly sender: MessageSender,
    private readonly failures: SendFailureLog,
  ) {}

  @Post('text')
  text(
    @Customer() customer: CustomerContext,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.send(customer, 'text', body, key, reply);
  }

  @Post('media')
  media(
    @Customer() customer: CustomerContext,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.send(customer, 'media', body, key, reply);
  }

  @Post('interactive')
  interactive(
    @Customer() customer: CustomerContext,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.send(customer, 'interactive', body, key, reply);
  }

  /** A location pin (extension). */
  @Post('location')
  location(
    @Customer() customer: CustomerContext,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.send(customer, 'location', body, key, reply);
  }

  /** Contact cards (extension). */
  @Post('contact')
  contact(
    @Customer() customer: CustomerContext,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.send(customer, 'contact', body, key, reply);
  }

  /** An emoji reaction to a message (extension). */
  @Post('reaction')
  reaction(
    @Customer() customer: CustomerContext,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.send(customer, 'reaction', body, key, reply);
  }

  /** Deletes a message this session sent, for everyone (extension). */
  @Post('revoke')
  revoke(
    @Customer() customer: CustomerContext,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.send(customer, 'revoke', body, key, reply);
  }

  /** Replaces the text of a message this session sent (extension). */
  @Post('edit')
  edit(
    @Customer() customer: CustomerContext,
    @Body() body: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.send(customer, 'edit', body, key, reply);
  }

  @Get('failures')
  async list(
    @Customer() customer: CustomerContext,
    @ValidQuery(failuresQuerySchema) query: z.output<typeof failuresQuerySchema>,
  ) {
    const failures = await orUnavailable('database', () =>
      this.failures.list(customer.access.accountId, { sessionId: query.sessionId, limit: query.limit }),
    );
    return {
      data: failures.map(({ accountId: _accountId, createdAt, ...failure }) => ({
        ...failure,
        createdAt: createdAt.toISOString(),
      })),
    };
  }

  private async send(
    customer: CustomerContext,
    kind: MessageKind,
    body: unknown,
    key: string | undefined,
    reply: FastifyReply,
  ) {
    const outcome = await this.sender.send(customer, kind, body, key);
    void reply.status(outcome.status);
    return outcome.body;
  }
}
