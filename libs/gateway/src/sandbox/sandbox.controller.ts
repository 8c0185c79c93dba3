import {
  sandboxDisconnectSchema,
  sandboxInboundSchema,
  sandboxOutboxQuerySchema,
  sandboxScanSchema,
  sandboxStatusSchema,
} from '@jumbe/contracts';
import { Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer, ValidBody, ValidQuery } from '../http/validated-input.decorators';
import { SessionCommandClient } from '../sessions/session-command.client';

/**
 * Sandbox control routes (CONTRACT §9): the simulated phone and contacts, acting on the caller's
 * own sessions through the worker that owns each. Registered only when JUMBE_NETWORK=sandbox.
 */
@Controller('api/v1/sandbox')
@UseGuards(CustomerAuthGuard)
export class SandboxController {
  constructor(private readonly commands: SessionCommandClient) {}

  @Post('scan')
  @HttpCode(200)
  async scan(
    @Customer() customer: CustomerContext,
    @ValidBody(sandboxScanSchema) body: z.output<typeof sandboxScanSchema>,
  ) {
    const data = await this.commands.send(
      {
        type: 'sandbox.scan',
        accountId: customer.access.accountId,
        ...body,
      },
      customer.requestId,
    );
    return { message: 'Phone linked', data };
  }

  @Post('inbound')
  @HttpCode(200)
  async inbound(
    @Customer() customer: CustomerContext,
    @ValidBody(sandboxInboundSchema) body: z.output<typeof sandboxInboundSchema>,
  ) {
    const { sessionId, ...contact } = body;
    const data = await this.commands.send(
      {
        type: 'sandbox.inbound',
        accountId: customer.access.accountId,
        sessionId,
        contact,
      },
      customer.requestId,
    );
    return { message: 'Message received by the session', data };
  }

  @Get('outbox')
  async outbox(
    @Customer() customer: CustomerContext,
    @ValidQuery(sandboxOutboxQuerySchema) query: z.output<typeof sandboxOutboxQuerySchema>,
  ) {
    return {
      data: await this.commands.send(
        {
          type: 'sandbox.outbox',
          accountId: customer.access.accountId,
          ...query,
        },
        customer.requestId,
      ),
    };
  }

  @Post('disconnect')
  @HttpCode(200)
  async disconnect(
    @Customer() customer: CustomerContext,
    @ValidBody(sandboxDisconnectSchema) body: z.output<typeof sandboxDisconnectSchema>,
  ) {
    const data = await this.commands.send(
      {
        type: 'sandbox.disconnect',
        accountId: customer.access.accountId,
        ...body,
      },
      customer.requestId,
    );
    return {
      message:
        body.reason === 'network'
          ? 'Network dropped; the session reconnects by itself'
          : 'Phone unlinked the session',
      data,
    };
  }

  @Post('status')
  @HttpCode(200)
  async status(
    @Customer() customer: CustomerContext,
    @ValidBody(sandboxStatusSchema) body: z.output<typeof sandboxStatusSchema>,
  ) {
    const data = await this.commands.send({
      type: 'sandbox.status',
      accountId: customer.access.accountId,
      ...body,
    });
    return { message: `Message marked ${body.status}`, data };
  }
}
