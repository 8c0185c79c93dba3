import { sandboxCallSchema } from '@jumbe/contracts';
import { Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { Customer } from '../auth/customer.decorator';
import { ValidBody } from '../http/validated-input.decorators';
import { forwardCommand } from '../sessions/forward-command';
import { SessionCommandClient } from '../sessions/session-command.client';

/** `POST /sandbox/call` (CONTRACT §9): a sandbox contact calls the number; registered with the sandbox. */
@Controller('api/v1/sandbox')
@UseGuards(CustomerAuthGuard)
export class SandboxCallController {
  constructor(private readonly commands: SessionCommandClient) {}

  @Post('call')
  @HttpCode(200)
  call(
    @Customer() customer: CustomerContext,
    @ValidBody(sandboxCallSchema) body: z.output<typeof sandboxCallSchema>,
  ) {
    return forwardCommand(this.commands, customer, { type: 'sandbox.call', ...body }, 'The call is ringing');
  }
}
