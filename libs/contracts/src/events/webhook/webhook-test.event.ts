import { z } from 'zod';
import { eventEnvelopeFields } from './event-envelope';

/** `webhook.test` v1: sent on `POST /webhook/test`, so a receiver can check its signature handling. */
export const webhookTestEventSchema = z.object({
  event: z.literal('webhook.test'),
  ...eventEnvelopeFields,
  data: z.object({ message: z.string() }),
});

/** The body of a test event for an account, made now. */
export function webhookTestEvent(accountId: string, now: Date): z.output<typeof webhookTestEventSchema> {
  return {
    event: 'webhook.test',
    timestamp: now.toISOString(),
    customerId: accountId,
    sessionId: 'default',
    data: { message: 'This is a test event from Jumbe. Your webhook receives and verifies deliveries.' },
  };
}
