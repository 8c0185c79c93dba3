import { z } from 'zod';
import {
  outboxEntrySchema,
  pairingCodeResultSchema,
  qrSchema,
  sandboxStatusResultSchema,
  sentMessageSchema,
  sessionSchema,
} from '../http/schemas/responses';
import {
  chatPresenceResultSchema,
  chatReadResultSchema,
  contactCheckResultSchema,
} from '../http/schemas/chats';
import { callSettingsSchema } from '../http/schemas/calls';
import { groupCommandResultSchema } from '../http/schemas/groups';
import { inboundMediaFileSchema } from '../http/schemas/inbound-media';
import {
  contactBlockResultSchema,
  contactProfileSchema,
  profileSchema,
  profileUpdateResultSchema,
} from '../http/schemas/profiles';
import type { SessionCommandType } from './session-command';

/** The result each command answers with when it succeeds; the gateway validates replies with it. */
export const COMMAND_RESULT_SCHEMAS = {
  'session.start': sessionSchema,
  'session.status': sessionSchema,
  'session.qr': qrSchema,
  'session.pairing_code': pairingCodeResultSchema,
  'session.logout': sessionSchema,
  'session.delete': sessionSchema,
  'session.reconnect': sessionSchema,
  'message.send': sentMessageSchema,
  'chat.read': chatReadResultSchema,
  'chat.presence': chatPresenceResultSchema,
  'contact.check': contactCheckResultSchema,
  group: groupCommandResultSchema,
  'profile.read': profileSchema,
  'profile.update': profileUpdateResultSchema,
  'contact.profile': contactProfileSchema,
  'contact.block': contactBlockResultSchema,
  'calls.settings.read': callSettingsSchema,
  'calls.settings.update': callSettingsSchema,
  'sandbox.call': z.object({ callId: z.string() }),
  'media.fetch': inboundMediaFileSchema,
  'sandbox.scan': sessionSchema,
  'sandbox.inbound': z.object({ id: z.string() }),
  'sandbox.outbox': z.array(outboxEntrySchema),
  'sandbox.disconnect': sessionSchema,
  'sandbox.status': sandboxStatusResultSchema,
} satisfies Record<SessionCommandType, z.ZodType>;

export type CommandResult<T extends SessionCommandType> = z.output<(typeof COMMAND_RESULT_SCHEMAS)[T]>;
