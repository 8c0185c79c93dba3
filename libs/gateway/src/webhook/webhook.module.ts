import { Module } from '@nestjs/common';
import { WebhookController } from './webhook.controller';
import { WebhookSettings } from './webhook-settings';

/** The account's webhook (CONTRACT §6): settings, deliveries, redelivery. */
@Module({
  controllers: [WebhookController],
  providers: [WebhookSettings],
})
export class WebhookModule {}
