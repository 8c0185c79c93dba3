/** One delivery attempt (CONTRACT §6 Delivery), with the event body it carried. */
export interface DeliveryRecord {
  id: string;
  accountId: string;
  /** The stream event it delivered; null for test events and hand-made redeliveries. */
  eventId: string | null;
  event: string;
  sessionId: string;
  url: string;
  status: 'success' | 'failed';
  statusCode: number | null;
  error: string | null;
  response: string | null;
  durationMs: number;
  payload: unknown;
  createdAt: Date;
  attemptedAt: Date;
  /** The X-Request-Id of the API request that asked for it (a test send); null for stream events. */
  requestId?: string | null;
}
