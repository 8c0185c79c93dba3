/**
 * Inbound events travel on the durable event stream from the worker that received them to the
 * webhook dispatcher that owns their shard. Subjects carry the shard (dispatchers consume per
 * shard), then the account and session (one session's events stay in order).
 */
export const EVENT_SUBJECT_PREFIX = 'jumbe.v1.events';
export const EVENT_STREAM_NAME = 'JUMBE_EVENTS';
/**
 * The same events, kept for live subscribers (`GET /api/v1/events`) under these subjects in a
 * stream of their own (the events stream's name + `_LIVE`), which gateways copy them into.
 */
export const LIVE_SUBJECT_PREFIX = 'jumbe.v1.live';

/** The JetStream stream of a deployment (each deployment sharing a NATS server has its own). */
export function eventStreamName(deployment: string | null): string {
  return deployment
    ? `${EVENT_STREAM_NAME}_${deployment.toUpperCase().replace(/-/g, '_')}`
    : EVENT_STREAM_NAME;
}

export function inboundEventSubject(shard: number, accountId: string, sessionId: string): string {
  return `${EVENT_SUBJECT_PREFIX}.${shard}.${accountId}.${sessionId}`;
}

/** Every event subject of one shard. */
export function shardEventFilter(shard: number): string {
  return `${EVENT_SUBJECT_PREFIX}.${shard}.>`;
}

/** The de-duplication id of an inbound event: the network message id, scoped to its session. */
export function inboundEventId(accountId: string, sessionId: string, messageId: string): string {
  return `${accountId}:${sessionId}:${messageId}`;
}

/**
 * The de-duplication id of an event a session produced that is not a received message (a state
 * change, a sent message's status): stable for the same fact, so a retried publish is stored once.
 */
export function sessionEventId(accountId: string, sessionId: string, event: string, fact: string): string {
  return `${accountId}:${sessionId}:${event}:${fact}`;
}
