import { z } from 'zod';
import { phoneNumberField, sessionIdField } from './common';

/** `POST /sandbox/call` (CONTRACT §9): a sandbox contact calls the session's number. */
export const sandboxCallSchema = z.strictObject({
  sessionId: sessionIdField,
  from: phoneNumberField,
  video: z.boolean().default(false),
});
