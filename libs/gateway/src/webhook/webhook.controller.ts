import {
  ApiError,
  deliverySchema,
  DISPATCH_COMMAND_VERSION,
  DISPATCH_SUBJECT,
  type DispatchCommand,
  deliveryParamsSchema,
  updateWebhookSchema,
  type UpdateWebhookInput,
} from '@jumbe/contracts';
import { Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { BUS } from '../gateway.tokens';
import { Customer } from '../auth/customer.decorator';
import { ValidBody } from '../http/validated-input.decorators';
import { requestCommand } from '../bus/command-requester';
import type { CommandBus } from '../ports/command-bus';
import { WebhookSettings } from './webhook-settings';
import { z } from 'zod';

/** A dispatcher may wait 10 s for the receiver; give it room to record and answer. */
const DISPATCH_TIMEOUT_MS = 15_000;

type Unversioned<C> = C extends unknown ? Omit<C, 'v'> : never;

// A dispatcher of the release before retries answers without `attempt`: its deliveries are first attempts.
const dispatchResultSchema = z.object({
  delivery: deliverySchema.extend({ attempt: deliverySchema.shape.attempt.default(1) }),
});

const DISPATCHER = { name: 'The webhook dispatcher', absence: 'none is running, or they are restarting' };

/** Webhook routes (CONTRACT §6). Test and redeliver are carried out by a dispatcher. */
@Controller('api/v1/webhook')
@UseGuards(CustomerAuthGuard)
export class WebhookController {
  constructor(
    private readonly settings: WebhookSettings,
    @Inject(BUS) private readonly bus: CommandBus,
  ) {}

  @Get()
  async read(@Customer() customer: CustomerContext) {
    return { data: await this.settings.read(customer.access.accountId) };
  }

  @Patch()
  update(@Customer() customer: CustomerContext, @ValidBody(updateWebhookSchema) input: UpdateWebhookInput) {
    return this.settings.update(customer.access.accountId, input);
  }

  @Delete()
  remove(@Customer() customer: CustomerContext) {
    return this.settings.remove(customer.access.accountId);
  }

  @Post('test')
  @HttpCode(200)
  async test(@Customer() customer: CustomerContext) {
    const data = await this.dispatch(
      { type: 'webhook.test', accountId: customer.access.accountId },
      customer.requestId,
    );
    return {
      message:
        data.delivery.status === 'success'
          ? 'Test event delivered'
          : 'Test event sent; the receiver did not accept it',
      data,
    };
  }

  @Post('deliveries/:id/redeliver')
  @HttpCode(200)
  async redeliver(@Customer() customer: CustomerContext, @Param() params: unknown) {
    // CONTRACT §6: an id that is not one of the account's deliveries is 404 whatever its form.
    const parsed = deliveryParamsSchema.safeParse(params);
    if (!parsed.success) throw new ApiError('not_found', 'No delivery with this id in this account.');
    const { id } = parsed.data;
    const data = await this.dispatch(
      { type: 'webhook.redeliver', accountId: customer.access.accountId, deliveryId: id },
      customer.requestId,
    );
    return {
      message:
        data.delivery.status === 'success'
          ? 'Event redelivered'
          : 'Event sent again; the receiver did not accept it',
      data,
    };
  }

  private async dispatch(
    command: Unversioned<DispatchCommand>,
    requestId: string | undefined,
  ): Promise<z.output<typeof dispatchResultSchema>> {
    const result = await requestCommand(
      this.bus,
      DISPATCH_SUBJECT,
      { v: DISPATCH_COMMAND_VERSION, ...command },
      DISPATCH_TIMEOUT_MS,
      DISPATCHER,
      requestId,
    );
    const parsed = dispatchResultSchema.safeParse(result);
    if (!parsed.success)
      throw new ApiError(
        'unavailable',
        'A dispatcher answered with a result this gateway does not understand.',
      );
    return parsed.data;
  }
}
