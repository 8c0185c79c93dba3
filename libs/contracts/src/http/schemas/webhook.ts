import { z } from 'zod';
import { httpUrlField } from './common';

export const updateWebhookSchema = z.strictObject({
  url: httpUrlField('invalid_webhook_url', 'url')
    .optional()
    .describe(
      'Public http or https URL, without a username or password. A query or fragment (e.g. `?token=…`) is ' +
        'stored encrypted and shown masked; sending the masked form back keeps the stored URL.',
    ),
  enabled: z.boolean().optional(),
  rotateSecret: z.boolean().optional(),
});

export const deliveryParamsSchema = z.strictObject({ id: z.uuid('delivery id must be a UUID') });

export type UpdateWebhookInput = z.output<typeof updateWebhookSchema>;
