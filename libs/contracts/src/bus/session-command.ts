import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../http/error-codes';
import { type OutboundMessage, outboundMessageSchema } from '../http/schemas/outbound-message';
import { PRESENCE_STATES } from '../http/schemas/chats';
import { groupOperationSchema } from '../http/schemas/groups';
import { inboundMediaQuerySchema } from '../http/schemas/inbound-media';
import { profileChangeSchema } from '../http/schemas/profiles';
import { sandboxDisconnectSchema, sandboxInboundSchema, sandboxStatusSchema } from '../http/schemas/sandbox';

/**
 * Commands the gateway sends to the worker that owns a session (request/reply on the shard's
 * subject). Every message carries `v`, the version of its type's shape; a worker refuses versions
 * it does not know. Every type is at SESSION_COMMAND_VERSION but `message.send`, at
 * MESSAGE_SEND_VERSION since its message became flat.
 */
export const SESSION_COMMAND_VERSION = 1;
/** v2: the message is `{ kind, to, … }`, flat (v1 nested it: `{ kind, body: { to, … } }`). */
export const MESSAGE_SEND_VERSION = 2;

const ref = {
  v: z.literal(SESSION_COMMAND_VERSION),
  accountId: z.string().min(1),
  sessionId: z.string().min(1),
};

/**
 * A v1 message (`{ kind, body }`, as gateways before v2 send it during a rollout), read as the flat
 * one: the same rules, whatever the kind.
 */
const nestedMessageSchema = z
  .object({ kind: z.string(), body: z.record(z.string(), z.unknown()) })
  .transform(({ kind, body }) => ({ ...body, kind }))
  .pipe(outboundMessageSchema);

const messageSendSchema = z.discriminatedUnion('v', [
  z.object({
    ...ref,
    v: z.literal(MESSAGE_SEND_VERSION),
    type: z.literal('message.send'),
    message: outboundMessageSchema,
    /**
     * The same on every try of one Idempotency-Key's request: a worker that already sent it
     * answers with that send's key instead of sending again (a try whose answer was lost, a 504,
     * must not become a second message). Optional and ignored by earlier workers (zod strips it).
     */
    sendId: z.string().min(1).max(128).optional(),
  }),
  z.object({ ...ref, type: z.literal('message.send'), message: nestedMessageSchema }),
]);

/**
 * The message of a v1 `message.send`, for a worker of the previous release: during a rollout
 * (gateways first) it refuses v2 as UNREADABLE_COMMAND, and the gateway sends v1 instead.
 */
export function nestedMessage(message: OutboundMessage): { kind: string; body: Record<string, unknown> } {
  const { kind, ...body } = message;
  return { kind, body };
}

/** How a worker, of this release or an earlier one, begins its answer to a command it cannot read. */
export const UNREADABLE_COMMAND = 'Malformed command for this worker version';

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
  messageSendSchema,
  z.object({
    ...ref,
    type: z.literal('chat.read'),
    chat: z.string(),
    messageIds: z.array(z.string()).min(1).max(100),
  }),
  z.object({ ...ref, type: z.literal('chat.presence'), chat: z.string(), state: z.enum(PRESENCE_STATES) }),
  z.object({ ...ref, type: z.literal('contact.check'), phoneNumber: z.string() }),
  /** A change to (or a read of) the number's groups (extension). */
  z.object({ ...ref, type: z.literal('group'), operation: groupOperationSchema }),
  z.object({ ...ref, type: z.literal('profile.read') }),
  z.object({ ...ref, type: z.literal('profile.update'), change: profileChangeSchema }),
  z.object({ ...ref, type: z.literal('contact.profile'), contact: z.string() }),
  z.object({ ...ref, type: z.literal('contact.block'), contact: z.string(), blocked: z.boolean() }),
  z.object({ ...ref, type: z.literal('calls.settings.read') }),
  z.object({
    ...ref,
    type: z.literal('calls.settings.update'),
    rejectCalls: z.boolean(),
    reply: z.string().nullable(),
  }),
  z.object({ ...ref, type: z.literal('media.fetch'), messageId: inboundMediaQuerySchema.shape.messageId }),
  z.object({ ...ref, type: z.literal('sandbox.scan'), phoneNumber: z.string() }),
  z.object({
    ...ref,
    type: z.literal('sandbox.inbound'),
    contact: sandboxInboundSchema.omit({ sessionId: true }),
  }),
  z.object({ ...ref, type: z.literal('sandbox.call'), from: z.string(), video: z.boolean() }),
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

/** The version a gateway stamps on a command of `type` (see SESSION_COMMAND_VERSION). */
export function commandVersion(type: SessionCommandType): number {
  return type === 'message.send' ? MESSAGE_SEND_VERSION : SESSION_COMMAND_VERSION;
}

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
