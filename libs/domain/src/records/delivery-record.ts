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
  /**
   * 1 for an event's first POST; its retries (opt-in) are 2, 3, … under the same `id`, each
   * recorded on its own.
   */
  attempt: number;
  /** The X-Request-Id of the API request that asked for it (a test send); null for stream events. */
  requestId?: string | null;
}

/** An event's latest recorded attempt: what a dispatcher goes on from after a restart. */
export interface LastAttempt {
  attempt: number;
  status: 'success' | 'failed';
  attemptedAt: Date;
}
