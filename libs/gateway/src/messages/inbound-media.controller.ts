import { inboundMediaQuerySchema } from '@jumbe/contracts';
import { Controller, Get, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer } from '../auth/customer.decorator';
import { ValidQuery } from '../http/validated-input.decorators';
import { InboundMediaFiles } from './inbound-media-files';

/** `GET /messages/media` (extension): the file of a media message a session received. */
@Controller('api/v1/messages')
@UseGuards(CustomerAuthGuard)
export class InboundMediaController {
  constructor(private readonly media: InboundMediaFiles) {}

  @Get('media')
  async file(
    @Customer() customer: CustomerContext,
    @ValidQuery(inboundMediaQuerySchema) query: z.output<typeof inboundMediaQuerySchema>,
    @Res() reply: FastifyReply,
  ) {
    const { headers, data } = await this.media.open(
      customer.access.accountId,
      query.sessionId,
      query.messageId,
      customer.requestId,
    );
    // Fastify destroys the stream when the answer ends early (client gone, socket error).
    return reply.headers(headers).send(data);
  }
}
