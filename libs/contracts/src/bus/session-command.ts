import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../http/error-codes';
import {
  contactMessageFields,
  editMessageFields,
  locationMessageFields,
  reactionMessageFields,
  revokeMessageFields,
} from '../http/schemas/conversation-messages';
import {
  interactiveMessageFields,
  mediaMessageFields,
  mediaTypeRules,
  sendTextSchema,
  uniqueActionIds,
} from '../http/schemas/messages';
import { PRESENCE_STATES } from '../http/schemas/chats';
import { inboundMediaQuerySchema } from '../http/schemas/inbound-media';
import { sandboxDisconnectSchema, sandboxInboundSchema, sandboxStatusSchema } from '../http/schemas/sandbox';

/**
 * Commands the gateway sends to the worker that owns a session (request/reply on the shard's
 * subject). Every message carries `v`; a worker refuses versions it does not know.
 */
export const SESSION_COMMAND_VERSION = 1;

const ref = {
  v: z.literal(SESSION_COMMAND_VERSION),
  accountId: z.string().min(1),
  sessionId: z.string().min(1),
};

const outboundMessageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), body: sendTextSchema.omit({ sessionId: true }) }),
  z.object({ kind: z.literal('media'), body: mediaMessageFields.superRefine(mediaTypeRules) }),
  z.object({ kind: z.literal('interactive'), body: interactiveMessageFields.superRefine(uniqueActionIds) }),
  z.object({ kind: z.literal('location'), body: locationMessageFields }),
  z.object({ kind: z.literal('contact'), body: contactMessageFields }),
  z.object({ kind: z.literal('reaction'), body: reactionMessageFields }),
  z.object({ kind: z.literal('revoke'), body: revokeMessageFields }),
  z.object({ kind: z.literal('edit'), body: editMessageFields }),
]);

export const sessionCommandSchema = z.discriminatedUnion('type', [
  z.object({ ...ref, type: z.literal('session.start'), maxSessions: z.number().int().min(0) }),
  z.object({ ...ref, type: z.literal('session.status') }),
  z.object({ ...ref, type: z.literal('session.qr') }),
  z.object({
    ...ref,
    type: z.literal('session.pairing_code'),
    phoneNumber: z.string(),
    maxSessions: z.number().int().min(0),
  }),
  z.object({ ...ref, type: z.literal('session.logout') }),
  z.object({ ...ref, type: z.literal('session.delete') }),
  /** Reopens a linked session's connection, which reads its settings (its proxy) afresh. */
  z.object({ ...ref, type: z.literal('session.reconnect') }),
  z.object({ ...ref, type: z.literal('message.send'), message: outboundMessageSchema }),
  z.object({
    ...ref,
    type: z.literal('chat.read'),
    chat: z.string(),
    messageIds: z.array(z.string()).min(1).max(100),
  }),
  z.object({ ...ref, type: z.literal('chat.presence'), chat: z.string(), state: z.enum(PRESENCE_STATES) }),
  z.object({ ...ref, type: z.literal('contact.check'), phoneNumber: z.string() }),
  z.object({ ...ref, type: z.literal('media.fetch'), messageId: inboundMediaQuerySchema.shape.messageId }),
  z.object({ ...ref, type: z.literal('sandbox.scan'), phoneNumber: z.string() }),
  z.object({
    ...ref,
    type: z.literal('sandbox.inbound'),
    contact: sandboxInboundSchema.omit({ sessionId: true }),
  }),
  z.object({ ...ref, type: z.literal('sandbox.outbox'), limit: z.number().int().min(1).max(1000) }),
  z.object({
    ...ref,
    type: z.literal('sandbox.disconnect'),
    reason: sandboxDisconnectSchema.shape.reason,
  }),
  z.object({
    ...ref,
    type: z.literal('sandbox.status'),
    messageId: sandboxStatusSchema.shape.messageId,
    status: sandboxStatusSchema.shape.status,
  }),
]);

export type SessionCommand = z.output<typeof sessionCommandSchema>;
export type SessionCommandType = SessionCommand['type'];
export type OutboundMessage = z.output<typeof outboundMessageSchema>;

const errorCodes = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** The worker's answer: a result, or a contract error code with a user-facing message. */
export const commandReplySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({
    ok: z.literal(false),
    error: z.object({
      code: z.enum(errorCodes),
      message: z.string(),
      /**
       * The command was not carried out because the session's shard is changing hands: sending it
       * again (to whoever owns the shard next) is safe. Absent from workers that predate it.
       */
      moving: z.boolean().optional(),
    }),
  }),
]);

export type CommandReply = z.output<typeof commandReplySchema>;

export const replyOk = (result: unknown): CommandReply => ({ ok: true, result });
export const replyError = (code: ErrorCode, message: string): CommandReply => ({
  ok: false,
  error: { code, message },
});

/** The command was not run here: the shard is moving. The gateway sends it again to the new owner. */
export const replyMoving = (message: string): CommandReply => ({
  ok: false,
  error: { code: 'unavailable', message, moving: true },
});
