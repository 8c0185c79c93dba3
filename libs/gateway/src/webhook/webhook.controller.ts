import {
  ApiError,
  commandReplySchema,
  DISPATCH_COMMAND_VERSION,
  DISPATCH_SUBJECT,
  type DispatchCommand,
  deliveryParamsSchema,
  updateWebhookSchema,
  type UpdateWebhookInput,
} from '@jumbe/contracts';
import { BusNoResponderError, BusTimeoutError } from '@jumbe/messaging';
import type { Infrastructure } from '@jumbe/platform';
import { Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { INFRASTRUCTURE } from '../gateway.tokens';
import { Customer, ValidBody } from '../http/validated-input.decorators';
import { parseInput } from '@jumbe/contracts';
import { WebhookSettings } from './webhook-settings';

/** A dispatcher may wait 10 s for the receiver; give it room to record and answer. */
const DISPATCH_TIMEOUT_MS = 15_000;

type Unversioned<C> = C extends unknown ? Omit<C, 'v'> : never;

/** Webhook routes (CONTRACT §6). Test and redeliver are carried out by a dispatcher. */
@Controller('api/v1/webhook')
@UseGuards(CustomerAuthGuard)
export class WebhookController {
  constructor(
    private readonly settings: WebhookSettings,
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
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
    const data = await this.dispatch({ type: 'webhook.test', accountId: customer.access.accountId });
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
    const { id } = parseInput(deliveryParamsSchema, params, 'path');
    const data = await this.dispatch({
      type: 'webhook.redeliver',
      accountId: customer.access.accountId,
      deliveryId: id,
    });
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
  ): Promise<{ delivery: { status: string } & Record<string, unknown> }> {
    let raw: unknown;
    try {
      raw = await this.infrastructure.bus.request(
        DISPATCH_SUBJECT,
        { v: DISPATCH_COMMAND_VERSION, ...command },
        { timeoutMs: DISPATCH_TIMEOUT_MS },
      );
    } catch (error) {
      if (error instanceof BusTimeoutError)
        throw new ApiError('timeout', 'The webhook dispatcher did not answer in time.');
      const noDispatcher = error instanceof BusNoResponderError;
      throw new ApiError(
        'unavailable',
        noDispatcher
          ? 'No webhook dispatcher is running. Retry shortly.'
          : 'The message bus failed. Retry shortly.',
        undefined,
        {
          'Retry-After': '2',
        },
      );
    }
    const reply = commandReplySchema.safeParse(raw);
    if (!reply.success)
      throw new ApiError(
        'unavailable',
        'A dispatcher answered in a format this gateway does not understand.',
      );
    if (!reply.data.ok) throw new ApiError(reply.data.error.code, reply.data.error.message);
    return reply.data.result as { delivery: { status: string } & Record<string, unknown> };
  }
}
