import { maskWebhookUrl } from '@jumbe/domain';

/** What a delivery view is made from (a stored delivery record). */
export interface DeliveryFacts {
  id: string;
  event: string;
  sessionId: string;
  url: string;
  status: 'success' | 'failed';
  statusCode: number | null;
  error: string | null;
  response: string | null;
  durationMs: number;
  createdAt: Date;
  attemptedAt: Date;
  attempt: number;
}

/** The Delivery object of CONTRACT §6. */
export function deliveryView(record: DeliveryFacts) {
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
