import { z } from 'zod';
import { callReceivedEventSchema } from './call-received.event';
import { deliveryIdField } from './event-envelope';
import { groupParticipantsEventSchema } from './group-participants.event';
import { groupUpdatedEventSchema } from './group-updated.event';
import { messageReceivedEventSchema } from './message-received.event';
import { messageEditedEventSchema } from './message-edited.event';
import { messagePollVoteEventSchema } from './message-poll-vote.event';
import { messageReactionEventSchema } from './message-reaction.event';
import { messageRevokedEventSchema } from './message-revoked.event';
import { messageStatusEventSchema } from './message-status.event';
import { sessionStatusEventSchema } from './session-status.event';
import { webhookTestEventSchema } from './webhook-test.event';

/**
 * Every webhook event type, by name: the one home of their shapes. The worker and dispatcher
 * build events of these types, the dispatcher validates what it reads from the stream against
 * them, the OpenAPI document's `webhooks` section is generated from them, and the receiver
 * package's types are tested against them. Version 1, as the stream's subjects say
 * (`jumbe.v1.events`); a breaking change is a new version, never an edit.
 */
export const WEBHOOK_EVENT_SCHEMAS = {
  'message.received': messageReceivedEventSchema,
  'message.status': messageStatusEventSchema,
  'message.reaction': messageReactionEventSchema,
  'message.revoked': messageRevokedEventSchema,
  'message.edited': messageEditedEventSchema,
  'message.poll_vote': messagePollVoteEventSchema,
  'session.status': sessionStatusEventSchema,
  'group.participants': groupParticipantsEventSchema,
  'group.updated': groupUpdatedEventSchema,
  'call.received': callReceivedEventSchema,
  'webhook.test': webhookTestEventSchema,
} as const;

export type WebhookEventName = keyof typeof WEBHOOK_EVENT_SCHEMAS;

/** Any event as it travels on the event stream (before the dispatcher adds its delivery id). */
export const streamEventSchema = z.discriminatedUnion('event', [
  messageReceivedEventSchema,
  messageStatusEventSchema,
  messageReactionEventSchema,
  messageRevokedEventSchema,
  messageEditedEventSchema,
  messagePollVoteEventSchema,
  sessionStatusEventSchema,
  groupParticipantsEventSchema,
  groupUpdatedEventSchema,
  callReceivedEventSchema,
  webhookTestEventSchema,
]);
export type StreamEvent = z.output<typeof streamEventSchema>;

/** An event as a webhook receives it: with the delivery id. */
export function deliveredEventSchema<N extends WebhookEventName>(name: N) {
  return WEBHOOK_EVENT_SCHEMAS[name].extend(deliveryIdField);
}

export type WebhookTestEventV1 = z.output<typeof webhookTestEventSchema>;
