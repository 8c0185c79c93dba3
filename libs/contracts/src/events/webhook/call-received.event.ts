import { z } from 'zod';
import { eventEnvelopeFields } from './event-envelope';

/**
 * `call.received` v1 (opt-in): someone called the number. Sent when the call is offered (it
 * rings); `rejected` says whether the session rejected it by itself (`PUT /session/calls`).
 */
export const callReceivedEventSchema = z.object({
  event: z.literal('call.received'),
  ...eventEnvelopeFields,
  call: z.object({
    /** WhatsApp's id of the call. */
    id: z.string(),
    /** The caller's number (digits) when WhatsApp gives it, else their id. */
    from: z.string(),
    /** Where a reply goes: use it as `to`. */
    replyTo: z.string(),
    video: z.boolean(),
    /** A group call; `groupId` is the group's id when WhatsApp gives it. */
    group: z.boolean(),
    groupId: z.string().nullable(),
    /** When the call was offered (ISO 8601). */
    offeredAt: z.string(),
    /** The session rejected it (its calls setting); the reply text, if any, was sent after. */
    rejected: z.boolean(),
  }),
});

export type CallReceivedEventV1 = z.output<typeof callReceivedEventSchema>;

/** What a driver reports of a ringing call (libs/network's IncomingCall). */
interface OfferedCall {
  id: string;
  from: string;
  callerPhone: string | null;
  video: boolean;
  group: boolean;
  groupJid: string | null;
  offeredAt: Date;
}

/** The `call.received` body for a call offered to the session. */
export function callReceivedEvent(
  accountId: string,
  sessionId: string,
  call: OfferedCall,
  rejected: boolean,
  at: Date,
): CallReceivedEventV1 {
  const from = call.callerPhone ?? call.from;
  return {
    event: 'call.received',
    timestamp: at.toISOString(),
    customerId: accountId,
    sessionId,
    call: {
      id: call.id,
      from,
      replyTo: call.callerPhone ?? call.from,
      video: call.video,
      group: call.group,
      groupId: call.groupJid,
      offeredAt: call.offeredAt.toISOString(),
      rejected,
    },
  };
}
