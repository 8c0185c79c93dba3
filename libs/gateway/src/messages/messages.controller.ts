import { failuresQuerySchema } from '@jumbe/contracts';
import { Controller, Get, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { CustomerAuthGuard, type CustomerRequest } from '../auth/customer-auth.guard';
import { orUnavailable } from '../auth/dependency-failure';
import type { CustomerContext } from '../auth/principal';
import { Customer, customerOf, ValidQuery } from '../http/validated-input.decorators';
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
  text(@Req() request: CustomerRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.send(request, 'text', reply);
  }

  @Post('media')
  media(@Req() request: CustomerRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.send(request, 'media', reply);
  }

  @Post('interactive')
  interactive(@Req() request: CustomerRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.send(request, 'interactive', reply);
  }

  /** A location pin (extension). */
  @Post('location')
  location(@Req() request: CustomerRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.send(request, 'location', reply);
  }

  /** Contact cards (extension). */
  @Post('contact')
  contact(@Req() request: CustomerRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.send(request, 'contact', reply);
  }

  /** An emoji reaction to a message (extension). */
  @Post('reaction')
  reaction(@Req() request: CustomerRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.send(request, 'reaction', reply);
  }

  /** Deletes a message this session sent, for everyone (extension). */
  @Post('revoke')
  revoke(@Req() request: CustomerRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.send(request, 'revoke', reply);
  }

  /** Replaces the text of a message this session sent (extension). */
  @Post('edit')
  edit(@Req() request: CustomerRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.send(request, 'edit', reply);
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

  /**
   * The send routes take the request and the reply only, and read the rest from them: each
   * parameter Nest resolves is a promise and an allocation per request, on the busiest route.
   */
  private async send(request: CustomerRequest, kind: MessageKind, reply: FastifyReply) {
    const key = request.headers['idempotency-key'];
    const outcome = await this.sender.send(
      customerOf(request),
      kind,
      request.body,
      typeof key === 'string' ? key : undefined,
    );
    void reply.status(outcome.status);
    return outcome.body;
  }
}
