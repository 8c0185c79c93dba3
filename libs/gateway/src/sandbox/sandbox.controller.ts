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
import { Customer } from '../auth/customer.decorator';
import { ValidBody, ValidQuery } from '../http/validated-input.decorators';
import { forwardCommand } from '../sessions/forward-command';
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
  scan(
    @Customer() customer: CustomerContext,
    @ValidBody(sandboxScanSchema) body: z.output<typeof sandboxScanSchema>,
  ) {
    return forwardCommand(this.commands, customer, { type: 'sandbox.scan', ...body }, 'Phone linked');
  }

  @Post('inbound')
  @HttpCode(200)
  inbound(
    @Customer() customer: CustomerContext,
    @ValidBody(sandboxInboundSchema) body: z.output<typeof sandboxInboundSchema>,
  ) {
    const { sessionId, ...contact } = body;
    return forwardCommand(
      this.commands,
      customer,
      { type: 'sandbox.inbound', sessionId, contact },
      'Message received by the session',
    );
  }

  @Get('outbox')
  outbox(
    @Customer() customer: CustomerContext,
    @ValidQuery(sandboxOutboxQuerySchema) query: z.output<typeof sandboxOutboxQuerySchema>,
  ) {
    return forwardCommand(this.commands, customer, { type: 'sandbox.outbox', ...query });
  }

  @Post('disconnect')
  @HttpCode(200)
  disconnect(
    @Customer() customer: CustomerContext,
    @ValidBody(sandboxDisconnectSchema) body: z.output<typeof sandboxDisconnectSchema>,
  ) {
    return forwardCommand(
      this.commands,
      customer,
      { type: 'sandbox.disconnect', ...body },
      body.reason === 'network'
        ? 'Network dropped; the session reconnects by itself'
        : 'Phone unlinked the session',
    );
  }

  @Post('status')
  @HttpCode(200)
  status(
    @Customer() customer: CustomerContext,
    @ValidBody(sandboxStatusSchema) body: z.output<typeof sandboxStatusSchema>,
  ) {
    return forwardCommand(
      this.commands,
      customer,
      { type: 'sandbox.status', ...body },
      `Message marked ${body.status}`,
    );
  }
}
