import { RETRY_ATTEMPTS_MAX, RETRY_ATTEMPTS_MIN } from '@jumbe/domain';
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

/** Opt-in retries of a failed event (CONTRACT §11); `null` turns them off, the spec's default. */
export const retryField = z
  .strictObject({
    attempts: z
      .number()
      .int()
      .min(RETRY_ATTEMPTS_MIN)
      .max(RETRY_ATTEMPTS_MAX)
      .describe(
        `Further attempts after the first one fails, ${RETRY_ATTEMPTS_MIN}–${RETRY_ATTEMPTS_MAX}; each waits 30 s·3^(k−1) (at most 6 h), all within 24 h of the event.`,
      ),
  })
  .nullable()
  .describe(
    'Automatic redelivery of a failed event, every attempt under the same delivery id; `null` (the default) for none. ' +
      "A session's later events wait behind one being retried.",
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
  retry: retryField.optional(),
});

export const deliveryParamsSchema = z.strictObject({ id: z.uuid('delivery id must be a UUID') });

export type UpdateWebhookInput = z.output<typeof updateWebhookSchema>;
