import { z } from 'zod';
import { KNOWN_WEBHOOK_EVENTS } from '../../events/webhook/event-subscription';
import { httpUrlField } from './common';

const knownEventsText = KNOWN_WEBHOOK_EVENTS.join(', ');

/** Event names the webhook receives; duplicates are dropped, the order kept. */
const eventsField = z
  .array(z.enum(KNOWN_WEBHOOK_EVENTS, { error: () => `unknown event; known events: ${knownEventsText}` }))
  .max(KNOWN_WEBHOOK_EVENTS.length * 2)
  .transform((events) => [...new Set(events)])
  .describe(
    `Event types the webhook receives (default \`["message.received"]\`; \`webhook.test\` is always sent). Known: ${knownEventsText}.`,
  );

export const updateWebhookSchema = z.strictObject({
  url: httpUrlField('invalid_webhook_url', 'url')
    .optional()
    .describe(
      'Public http or https URL, without a username or password. A query or fragment (e.g. `?token=…`) is ' +
        'stored encrypted and shown masked; sending the masked form back keeps the stored URL.',
    ),
  enabled: z.boolean().optional(),
  rotateSecret: z.boolean().optional(),
  events: eventsField.optional(),
});

export const deliveryParamsSchema = z.strictObject({ id: z.uuid('delivery id must be a UUID') });

export type UpdateWebhookInput = z.output<typeof updateWebhookSchema>;
