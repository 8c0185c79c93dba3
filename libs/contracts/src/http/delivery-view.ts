import { maskWebhookUrl } from '@jumbe/domain';
import type { z } from 'zod';
import type { deliverySchema } from './schemas/responses';

/** The Delivery object of CONTRACT §6, as `deliverySchema` says. */
export type DeliveryView = z.output<typeof deliverySchema>;

/** What a delivery view is made from (a stored delivery record): the view's fields, its times as dates. */
export type DeliveryFacts = Omit<DeliveryView, 'createdAt' | 'attemptedAt'> & {
  createdAt: Date;
  attemptedAt: Date;
};

/** The Delivery object of CONTRACT §6. */
export function deliveryView(record: DeliveryFacts): DeliveryView {
  return {
    id: record.id,
    event: record.event,
    sessionId: record.sessionId,
    // Recorded masked; masked again for deliveries recorded before URLs were.
    url: maskWebhookUrl(record.url),
    status: record.status,
    statusCode: record.statusCode,
    error: record.error,
    response: record.response,
    durationMs: record.durationMs,
    createdAt: record.createdAt.toISOString(),
    attemptedAt: record.attemptedAt.toISOString(),
    attempt: record.attempt,
  };
}
