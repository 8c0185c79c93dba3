import { z } from 'zod';
import { eventEnvelopeFields } from './event-envelope';

/**
 * What the network says happened to a message the session sent, in the order they happen
 * (`played` is for voice notes and videos; `failed` when the network refused it after the send).
 */
export const MESSAGE_STATUSES = ['server_ack', 'delivered', 'read', 'played', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * `message.status` v1 (opt-in): a status of a message sent through the API. A message to a group
 * or to a contact with several devices reaches many devices; each step is reported once.
 */
export const messageStatusEventSchema = z.object({
  event: z.literal('message.status'),
  ...eventEnvelopeFields,
  message: z.object({
    /** The id the send returned (`key.id`). */
    id: z.string(),
    /** The chat it was sent to (`key.remoteJid` of the send). */
    to: z.string(),
    status: z.enum(MESSAGE_STATUSES),
    /** When the network reported it (ISO 8601). */
    at: z.string(),
  }),
});

export type MessageStatusEventV1 = z.output<typeof messageStatusEventSchema>;

/** The `message.status` body for one reported status. */
export function messageStatusEvent(
  accountId: string,
  sessionId: string,
  report: { messageId: string; to: string; status: MessageStatus; at: Date },
  now: Date,
): MessageStatusEventV1 {
  const at = Number.isNaN(report.at.getTime()) ? now : report.at;
  return {
    event: 'message.status',
    timestamp: now.toISOString(),
    customerId: accountId,
    sessionId,
    message: { id: report.messageId, to: report.to, status: report.status, at: at.toISOString() },
  };
}
