import { z } from 'zod';
import { sessionIdField } from './common';

export const CALL_REPLY_MAX = 1000;

/**
 * `PUT /session/calls` (extension): whether the session rejects incoming calls by itself, and the
 * text it then sends the caller. Off until set (the spec's behaviour: calls ring on the phone).
 */
export const callSettingsBodySchema = z.strictObject({
  sessionId: sessionIdField,
  rejectCalls: z.boolean().describe('Reject every incoming call as it rings.'),
  reply: z
    .string()
    .trim()
    .min(1, 'reply must not be empty; leave it out to send nothing')
    .max(CALL_REPLY_MAX, `reply must be at most ${CALL_REPLY_MAX} characters`)
    .optional()
    .describe('A text message sent to the caller after a call was rejected.'),
});

export const callSettingsSchema = z.object({
  sessionId: z.string(),
  rejectCalls: z.boolean(),
  reply: z.string().nullable(),
});
export type CallSettings = z.output<typeof callSettingsSchema>;
