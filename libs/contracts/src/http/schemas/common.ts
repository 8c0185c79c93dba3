import { DEFAULT_SESSION_ID, isValidPhoneNumber, isValidRecipient, isValidSessionId } from '@jumbe/domain';
import { z } from 'zod';
import type { IssueParams } from '../validation';

const params = (code: IssueParams['code']): { params: IssueParams } => ({ params: { code } });

/** CONTRACT §4: a sessionId of the right type in the wrong form is `invalid_session_id`. */
const sessionIdValue = z.string().refine(isValidSessionId, {
  message: 'sessionId must be 1 to 64 characters of letters, digits, "_" and "-"',
  ...params('invalid_session_id'),
});

export const sessionIdField = sessionIdValue
  .default(DEFAULT_SESSION_ID)
  .describe('Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.');

/** A session filter: absent means every session. */
export const sessionFilterField = sessionIdValue
  .optional()
  .describe('Only this session; all sessions when absent.');

export const recipientField = z
  .string()
  .refine(isValidRecipient, {
    message:
      'to must be an international number of 7 to 15 digits without "+" or spaces (e.g. 254712345678), or a message.replyTo value from a webhook event',
    ...params('invalid_phone'),
  })
  .describe('International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value.');

export const phoneNumberField = z
  .string()
  .refine(isValidPhoneNumber, {
    message: 'phoneNumber must be an international number of 7 to 15 digits without "+" or spaces',
    ...params('invalid_phone'),
  })
  .describe('International number, digits only.');

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** An absolute http(s) URL; `code` says which error a bad one is (media vs webhook vs action). */
export function httpUrlField(code: IssueParams['code'], label: string) {
  return z
    .string()
    .max(2048, `${label} must be at most 2048 characters`)
    .refine(isHttpUrl, { message: `${label} must be an absolute http:// or https:// URL`, ...params(code) })
    .describe('Absolute http or https URL.');
}

/** A network message id in the form sends return (`data.key.id`) and webhook events carry (`message.id`). */
export function networkMessageIdField(label: string) {
  return z
    .string()
    .min(1, `${label} must not be empty`)
    .max(128, `${label} must be at most 128 characters`)
    .regex(/^[A-Za-z0-9._:-]+$/, `${label} must be an id returned by a send or carried by a webhook event`);
}

/**
 * A reply: the message of the same chat to quote (extension). The worker must know it: one this
 * session sent in the last 24 hours or received in the last 7 days, else 404 `message_not_found`.
 */
export const quotedMessageIdField = networkMessageIdField('quotedMessageId')
  .optional()
  .describe(
    'Reply to (quote) this message of the same chat: the `id` a send returned (`data.key.id`, kept 24 hours) or a `message.received` event carried (`message.id`, kept 7 days). 404 `message_not_found` when unknown or of another chat.',
  );

export const nonEmptyText = (label: string, max: number) =>
  z.string().min(1, `${label} must not be empty`).max(max, `${label} must be at most ${max} characters`);

/** The query of session routes: `?sessionId=` only. */
export const sessionQuerySchema = z.strictObject({ sessionId: sessionIdField });
/** The body of session routes whose only field is the optional sessionId. */
export const sessionBodySchema = z.strictObject({ sessionId: sessionIdField });
