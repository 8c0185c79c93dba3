/**
 * Inbound events travel on the durable event stream from the worker that received them to a
 * webhook dispatcher. Subjects carry the account and session so one session's events stay in
 * order and consumers can spread accounts.
 */
export const EVENT_SUBJECT_PREFIX = 'jumbe.v1.events';
export const EVENT_STREAM_NAME = 'JUMBE_EVENTS';

export function inboundEventSubject(accountId: string, sessionId: string): string {
  return `${EVENT_SUBJECT_PREFIX}.${accountId}.${sessionId}`;
}

/** The de-duplication id of an inbound event: the network message id, scoped to its session. */
export function inboundEventId(accountId: string, sessionId: string, messageId: string): string {
  return `${accountId}:${sessionId}:${messageId}`;
}
