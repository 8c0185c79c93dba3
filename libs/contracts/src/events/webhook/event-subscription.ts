import { WEBHOOK_EVENT_SCHEMAS, type WebhookEventName } from './webhook-events';

/** Every event name an account may list in `PATCH /webhook {"events": [...]}`. */
export const KNOWN_WEBHOOK_EVENTS = Object.keys(WEBHOOK_EVENT_SCHEMAS) as [
  WebhookEventName,
  ...WebhookEventName[],
];

/**
 * What an account receives until it chooses: exactly what the interface spec defines
 * (`message.received`; `webhook.test` goes regardless). Every other event type is an opt-in.
 */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEventName[] = ['message.received'];

/** Sent on request (`POST /webhook/test`), so it reaches the webhook whatever it subscribed to. */
const ALWAYS_DELIVERED: ReadonlySet<string> = new Set<WebhookEventName>(['webhook.test']);

/** Whether a webhook subscribed to `events` receives an event of type `event`. */
export function isSubscribedTo(events: readonly string[], event: string): boolean {
  return ALWAYS_DELIVERED.has(event) || events.includes(event);
}
