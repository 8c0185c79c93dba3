// The event bodies a webhook receives, from the OpenAPI document's `webhooks` (generated from the
// server's event schemas in libs/contracts).
import type { webhooks } from './generated/jumbe-api';

/** Every event type (`message.received`, `session.status`, …). */
export type WebhookEventName = keyof webhooks;

/** The signed JSON body of one `name` event. */
export type WebhookEventOf<N extends WebhookEventName> =
  webhooks[N]['post']['requestBody']['content']['application/json'];

/** Any event, discriminated on `event`. */
export type WebhookEvent = { [N in WebhookEventName]: WebhookEventOf<N> }[WebhookEventName];

export type MessageReceivedEvent = WebhookEventOf<'message.received'>;
export type MessageStatusEvent = WebhookEventOf<'message.status'>;
export type MessageReactionEvent = WebhookEventOf<'message.reaction'>;
export type MessageRevokedEvent = WebhookEventOf<'message.revoked'>;
export type MessageEditedEvent = WebhookEventOf<'message.edited'>;
export type MessagePollVoteEvent = WebhookEventOf<'message.poll_vote'>;
export type SessionStatusEvent = WebhookEventOf<'session.status'>;
export type CallReceivedEvent = WebhookEventOf<'call.received'>;
export type GroupParticipantsEvent = WebhookEventOf<'group.participants'>;
export type GroupUpdatedEvent = WebhookEventOf<'group.updated'>;
export type WebhookTestEvent = WebhookEventOf<'webhook.test'>;
