import { z } from 'zod';
import {
  contactMessageFields,
  editMessageFields,
  locationMessageFields,
  reactionMessageFields,
  revokeMessageFields,
  sendContactSchema,
  sendEditSchema,
  sendLocationSchema,
  sendReactionSchema,
  sendRevokeSchema,
} from './conversation-messages';
import {
  interactiveMessageFields,
  mediaMessageFields,
  mediaTypeRules,
  oneMediaSource,
  sendInteractiveSchema,
  sendMediaSchema,
  sendTextSchema,
  textMessageFields,
  uniqueActionIds,
} from './messages';
import {
  pollMessageFields,
  sendPollSchema,
  sendStatusSchema,
  statusMessageFields,
  statusTypeRules,
} from './poll-status-messages';

/** A kind's fields (as they cross the bus: no sessionId) with its `kind`, flat. */
function member<K extends string, S extends z.core.$ZodShape, C extends z.core.$ZodObjectConfig>(
  kind: K,
  fields: z.ZodObject<S, C>,
) {
  return fields.extend({ kind: z.literal(kind) });
}

/**
 * Every message a session sends, one member per kind: `{ kind, to, … }`, flat. The one shape of a
 * message from the HTTP route (`POST /api/v1/messages/{kind}`, whose body is the member without
 * `kind`, with `sessionId`) over the bus to the network driver, which maps each kind to its
 * network once. A new kind is its fields, one member here and one body in SEND_BODIES.
 */
export const outboundMessageSchema = z.discriminatedUnion('kind', [
  member('text', textMessageFields),
  member('media', mediaMessageFields.superRefine(mediaTypeRules).superRefine(oneMediaSource)),
  member('interactive', interactiveMessageFields.superRefine(uniqueActionIds)),
  member('location', locationMessageFields),
  member('contact', contactMessageFields),
  member('reaction', reactionMessageFields),
  member('revoke', revokeMessageFields),
  member('edit', editMessageFields),
  member('poll', pollMessageFields),
  // The one kind without `to`: a status goes to status@broadcast, seen by its `contacts`.
  member('status', statusMessageFields.superRefine(statusTypeRules)),
]);

export type OutboundMessage = z.output<typeof outboundMessageSchema>;
export type OutboundKind = OutboundMessage['kind'];
/** One kind's message, e.g. `OutboundOf<'location'>`. */
export type OutboundOf<K extends OutboundKind> = Extract<OutboundMessage, { kind: K }>;

/** The kinds, in the union's order: one send route each. */
export const OUTBOUND_KINDS: readonly OutboundKind[] = outboundMessageSchema.options.map(
  (option) => option.shape.kind.value,
);

/** A body, parsed, as the command carries it: the session, and the message with its kind. */
function asSend<K extends OutboundKind, S extends z.ZodType<{ sessionId: string }>>(kind: K, body: S) {
  return body.transform(({ sessionId, ...fields }) => ({ sessionId, message: { ...fields, kind } }));
}

/**
 * The kinds that can reply (they take `quotedMessageId`): the messages with content, which are
 * also the ones a reply can quote (not reactions, edits or deletions).
 */
export const REPLY_KINDS: ReadonlySet<string> = new Set(
  outboundMessageSchema.options
    .filter((option) => 'quotedMessageId' in option.shape)
    .map((option) => option.shape.kind.value),
);

/**
 * Each kind's request body: the member's fields and the session to send from (the same field
 * schemas, so the same rules and error paths). `.in` is the body as the API documents it; parsing
 * gives `{ sessionId, message }`, the message flat with its kind.
 */
export const SEND_BODIES = {
  text: asSend('text', sendTextSchema),
  media: asSend('media', sendMediaSchema),
  interactive: asSend('interactive', sendInteractiveSchema),
  location: asSend('location', sendLocationSchema),
  contact: asSend('contact', sendContactSchema),
  reaction: asSend('reaction', sendReactionSchema),
  revoke: asSend('revoke', sendRevokeSchema),
  edit: asSend('edit', sendEditSchema),
  poll: asSend('poll', sendPollSchema),
  status: asSend('status', sendStatusSchema),
} as const satisfies Record<OutboundKind, z.ZodType>;
