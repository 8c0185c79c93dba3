import {
  deliveryParamsSchema,
  deliverySchema,
  envelope,
  updateWebhookSchema,
  webhookConfigSchema,
  webhookStateSchema,
} from '@jumbe/contracts';
import { z } from 'zod';
import type { RouteDescription } from '../http/route-description';

/** The account's webhook (CONTRACT §6), as WebhookController serves it. */
export const WEBHOOK_ROUTES: RouteDescription[] = [
  {
    method: 'GET',
    path: '/api/v1/webhook',
    tag: 'Webhook',
    summary: 'Webhook configuration and the 20 newest deliveries',
    auth: 'key',
    response: envelope(webhookStateSchema),
  },
  {
    method: 'PATCH',
    path: '/api/v1/webhook',
    tag: 'Webhook',
    summary: 'Save the webhook: URL, events, opt-in retry (secret shown on first save and rotation only)',
    auth: 'key',
    body: updateWebhookSchema,
    response: envelope(webhookConfigSchema).extend({ secret: z.string().optional() }),
    errors: ['invalid_webhook_url'],
  },
  {
    method: 'DELETE',
    path: '/api/v1/webhook',
    tag: 'Webhook',
    summary: 'Remove the webhook and its secret',
    auth: 'key',
    response: envelope(webhookConfigSchema),
  },
  {
    method: 'POST',
    path: '/api/v1/webhook/test',
    tag: 'Webhook',
    summary: 'Send a signed webhook.test event',
    auth: 'key',
    response: envelope(z.object({ delivery: deliverySchema })),
    errors: ['webhook_not_enabled'],
  },
  {
    method: 'POST',
    path: '/api/v1/webhook/deliveries/{id}/redeliver',
    tag: 'Webhook',
    summary: 'Send a recorded event again as a new delivery',
    auth: 'key',
    params: deliveryParamsSchema,
    response: envelope(z.object({ delivery: deliverySchema })),
    errors: ['webhook_not_enabled', 'not_found'],
  },
];
