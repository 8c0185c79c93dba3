import type { WebhookEventName } from './webhook-events';

/**
 * Every webhook event type, for pickers and filters (`PATCH /webhook {"events": [...]}`);
 * `webhook.test` is always delivered. Checked against the generated types both ways: a name the
 * document lacks does not compile, and neither does a document event missing here.
 */
export const WEBHOOK_EVENT_NAMES = [
  'message.received',
  'message.status',
  'message.reaction',
  'message.revoked',
  'message.edited',
  'message.poll_vote',
  'session.status',
  'call.received',
  'group.participants',
  'group.updated',
  'webhook.test',
] as const satisfies readonly WebhookEventName[];

/** Fails to compile when the document has an event type the list above lacks. */
export const everyEventListed: Exclude<WebhookEventName, (typeof WEBHOOK_EVENT_NAMES)[number]> extends never
  ? true
  : never = true;
