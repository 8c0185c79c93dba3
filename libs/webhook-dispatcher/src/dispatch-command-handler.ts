import {
  ApiError,
  type CommandReply,
  deliveryView,
  dispatchCommandSchema,
  recordedPayloadSchema,
  replyError,
  replyOk,
  webhookTestEvent,
} from '@jumbe/contracts';
import { newDeliveryId } from '@jumbe/domain';
import type { BusMessage } from '@jumbe/messaging';
import { loggerForMessage, requestIdOfMessage } from '@jumbe/telemetry';
import type { DeliveryLog } from './ports/delivery-log';
import type { Logger } from 'pino';
import type { WebhookDirectory, WebhookTarget } from './webhook-directory';
import type { WebhookPoster } from './webhook-poster';

/**
 * Deliveries made on request (any dispatcher answers): `webhook.test` events and hand-made
 * redeliveries of a recorded event, each a new delivery with its own id, recorded like any other.
 */
export class DispatchCommandHandler {
  constructor(
    private readonly directory: WebhookDirectory,
    private readonly poster: WebhookPoster,
    private readonly deliveries: Pick<DeliveryLog, 'record' | 'find'>,
    private readonly logger: Logger,
  ) {}

  /** `message` carries the id of the API request that asked (see @jumbe/telemetry): kept on the record. */
  async handle(raw: unknown, message?: BusMessage): Promise<CommandReply> {
    const parsed = dispatchCommandSchema.safeParse(raw);
    if (!parsed.success)
      return replyError('validation_error', `Malformed dispatch command: ${parsed.error.message}`);
    const command = parsed.data;
    try {
      const payload =
        command.type === 'webhook.test'
          ? webhookTestEvent(command.accountId, new Date())
          : await this.recordedPayload(command.accountId, command.deliveryId);
      // The delivery is looked up first: another account's delivery id is simply not found.
      const webhook = await this.enabledWebhook(command.accountId);
      const record = await this.poster.post({
        accountId: command.accountId,
        eventId: null,
        deliveryId: newDeliveryId(),
        url: webhook.url,
        secret: webhook.secret,
        payload,
      });
      await this.deliveries.record({ ...record, requestId: requestIdOfMessage(message) ?? null });
      return replyOk({ delivery: deliveryView(record) });
    } catch (error) {
      if (error instanceof ApiError) return replyError(error.code, error.message);
      loggerForMessage(this.logger, message).error(
        { err: error, type: command.type },
        'dispatch command failed',
      );
      return replyError('unavailable', 'The dispatcher could not complete the delivery. Retry shortly.');
    }
  }

  private async enabledWebhook(accountId: string): Promise<WebhookTarget> {
    // Read fresh: a webhook saved a moment ago must be testable at once, whatever the cache holds.
    const webhook = await this.directory.get(accountId, { fresh: true });
    if (!webhook || !webhook.enabled) {
      throw new ApiError('webhook_not_enabled');
    }
    return webhook;
  }

  /**
   * The recorded event's body without its delivery id (the new one is added when posting); a
   * record kept without its body (the database refused it) cannot be sent again.
   */
  private async recordedPayload(accountId: string, deliveryId: string) {
    const recorded = await this.deliveries.find(accountId, deliveryId);
    if (!recorded) throw new ApiError('not_found', `No delivery ${deliveryId} on this account.`);
    const parsed = recordedPayloadSchema.safeParse(recorded.payload);
    if (!parsed.success) {
      throw new ApiError(
        'conflict',
        `Delivery ${deliveryId} was recorded without its event body, so it cannot be redelivered.`,
      );
    }
    const { deliveryId: _previous, ...payload } = parsed.data;
    return payload;
  }
}
