import { isValidSessionId } from '@jumbe/domain';
import { z } from 'zod';
import { phoneNumberField, sessionIdField } from './common';

export const qrQuerySchema = z.strictObject({
  sessionId: sessionIdField,
  format: z
    .enum(['json', 'png', 'svg'])
    .default('json')
    .describe('`png` or `svg` return the QR as an image.'),
});

export const pairingCodeSchema = z.strictObject({ sessionId: sessionIdField, phoneNumber: phoneNumberField });

/** Most sessions one page of `GET /sessions` returns. */
export const SESSIONS_PAGE_MAX = 1_000;
/** A page's size when only `cursor` is given. */
export const SESSIONS_PAGE_DEFAULT = 100;

/**
 * `GET /sessions` paging (an extension): with neither field the spec's answer, every session; with
 * either, one page in session id order and `nextCursor` for the next. The cursor is the last
 * session id of the previous page, so it is checked as one (and never reaches SQL unchecked).
 */
export const sessionsQuerySchema = z.strictObject({
  limit: z.coerce
    .number({ error: `limit must be a whole number from 1 to ${SESSIONS_PAGE_MAX}` })
    .int(`limit must be a whole number from 1 to ${SESSIONS_PAGE_MAX}`)
    .min(1, `limit must be a whole number from 1 to ${SESSIONS_PAGE_MAX}`)
    .max(SESSIONS_PAGE_MAX, `limit must be a whole number from 1 to ${SESSIONS_PAGE_MAX}`)
    .optional()
    .describe(
      `Opt-in paging: at most this many sessions (1–${SESSIONS_PAGE_MAX}), in session id order, with \`nextCursor\`. Without \`limit\` and \`cursor\` every session is listed.`,
    ),
  cursor: z
    .string()
    .refine(isValidSessionId, 'cursor must be the nextCursor of an earlier page, unchanged')
    .optional()
    .describe(
      `The \`nextCursor\` of the previous page, unchanged (treat it as opaque). Pages hold ${SESSIONS_PAGE_DEFAULT} sessions unless \`limit\` says otherwise.`,
    ),
});
