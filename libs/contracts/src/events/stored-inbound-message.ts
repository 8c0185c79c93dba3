import type { InboundNetworkMessage } from '@jumbe/domain';
import { z } from 'zod';
import { receivedInteractionSchema, receivedMediaSchema } from './webhook/message-received.event';

// A received message as a worker keeps it (sealed) in the inbound outbox until the event stream
// has it: written by one process, read by the session's next owner, possibly a newer or older
// version of the worker. So it is validated when read, never cast.

const change = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('reaction'), messageId: z.string(), emoji: z.string() }),
  z.object({ kind: z.literal('revoke'), messageId: z.string() }),
  z.object({ kind: z.literal('edit'), messageId: z.string(), text: z.string() }),
]);

/**
 * libs/domain's InboundNetworkMessage in JSON. The one field JSON cannot carry is the Date: it is
 * an ISO string, or null for a time the driver could not read (JSON's form of an invalid Date),
 * which stays unreadable (the event then falls back to its own time).
 */
export const storedInboundMessageSchema: z.ZodType<InboundNetworkMessage, unknown> = z.object({
  id: z.string().min(1),
  chat: z.string().min(1),
  participant: z.string().nullable(),
  senderPhoneJid: z.string().nullable(),
  fromMe: z.boolean(),
  pushName: z.string().nullable(),
  type: z.string(),
  text: z.string(),
  interaction: receivedInteractionSchema.nullable(),
  media: receivedMediaSchema.nullable(),
  timestamp: z
    .string()
    .nullable()
    .transform((at) => new Date(at ?? Number.NaN)),
  change: change.optional(),
});

/** A received message as the outbox keeps it. */
export function storedInboundMessageJson(message: InboundNetworkMessage): string {
  return JSON.stringify(message);
}

/** The received message an outbox entry holds; throws when the entry is not one (a bad row). */
export function parseStoredInboundMessage(json: string): InboundNetworkMessage {
  return storedInboundMessageSchema.parse(JSON.parse(json));
}
