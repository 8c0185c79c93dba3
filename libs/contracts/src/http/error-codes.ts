/**
 * Every error code of the wire contract (CONTRACT §2): the HTTP status it always travels with and
 * the message a client sees when the thrower has nothing more specific to say. Kept together, as
 * fastify keeps its `FST_*` codes with their texts, so a code's wording lives in one place and the
 * services that raise it (workers, dispatchers) need not know the HTTP routes.
 */
export const ERRORS = {
  validation_error: { status: 400, message: 'Invalid request.' },
  invalid_json: { status: 400, message: 'Request body is not valid JSON.' },
  invalid_phone: { status: 400, message: 'Invalid phone number: use digits with the country code.' },
  invalid_session_id: { status: 400, message: 'Invalid session id.' },
  invalid_media_url: { status: 400, message: 'Invalid media URL: a public http(s) URL is required.' },
  invalid_webhook_url: { status: 400, message: 'Invalid webhook URL: a public http(s) URL is required.' },
  invalid_proxy_url: {
    status: 400,
    message: 'Invalid proxy URL: a public http(s) or socks5 proxy URL is required.',
  },
  unauthorized: {
    status: 401,
    message: 'Missing or invalid API key. Send it as "x-api-key: <key>" or "Authorization: Bearer <key>".',
  },
  monthly_limit_reached: { status: 402, message: "The plan's monthly API-hit limit is reached." },
  forbidden: { status: 403, message: 'This key may not do that.' },
  account_suspended: { status: 403, message: 'The account is suspended.' },
  instance_limit_reached: { status: 403, message: "The plan's session limit is reached." },
  not_found: { status: 404, message: 'Not found.' },
  message_not_found: {
    status: 404,
    message:
      'This session has no record of that message in this chat (sent messages are kept for 24 hours, received ones for 7 days).',
  },
  media_not_found: {
    status: 404,
    message:
      'This session received no media file with that message id (inbound media can be fetched for 7 days after it arrived).',
  },
  media_expired: {
    status: 410,
    message: 'The media file is no longer available: past the 7 days Jumbe keeps it, or WhatsApp deleted it.',
  },
  media_too_large: {
    status: 422,
    message: 'The media file is larger than this deployment downloads (JUMBE_MEDIA_MAX_BYTES).',
  },
  conflict: { status: 409, message: 'Conflicts with the current state.' },
  session_not_connected: {
    status: 409,
    message: 'The session is not connected; the message was not sent and is not queued.',
  },
  number_in_use: {
    status: 409,
    message:
      'This phone number is linked to another session. Log out the other session or use another number.',
  },
  session_not_ready: {
    status: 409,
    message:
      'The session is not waiting for a scan or a code: start the session, then scan its QR code or enter its pairing code while it shows one.',
  },
  webhook_not_enabled: {
    status: 409,
    message: 'No enabled webhook: save one with PATCH /api/v1/webhook { url, enabled: true } first.',
  },
  message_not_editable: {
    status: 409,
    message:
      'The message can no longer be changed: WhatsApp allows edits for 15 minutes and deletes for everyone for 60 hours after sending.',
  },
  idempotency_conflict: {
    status: 409,
    message: 'This Idempotency-Key was already used with another request.',
  },
  payload_too_large: { status: 413, message: 'Request body is too large.' },
  unsupported_media_type: { status: 415, message: 'Send the body as application/json.' },
  rate_limited: { status: 429, message: 'Too many requests. Retry after the time in Retry-After.' },
  internal_error: { status: 500, message: 'Internal error. It has been logged.' },
  network_error: { status: 502, message: 'The network did not accept the message.' },
  media_fetch_failed: { status: 502, message: 'The media file could not be fetched from its URL.' },
  media_download_failed: {
    status: 502,
    message: "The media file could not be downloaded from WhatsApp's media servers. Retry shortly.",
  },
  media_busy: {
    status: 503,
    message:
      'The worker is downloading as many media files as it may at once. Retry after the time in Retry-After.',
  },
  unavailable: { status: 503, message: 'A service Jumbe depends on is unavailable. Retry shortly.' },
  session_restoring: {
    status: 503,
    message: 'The session is being restored after a hand-over. Retry after the time in Retry-After.',
  },
  timeout: { status: 504, message: 'The request timed out.' },
} as const satisfies Record<string, { status: number; message: string }>;

/** The HTTP status of each error code. */
export const ERROR_STATUS = Object.fromEntries(
  Object.entries(ERRORS).map(([code, { status }]) => [code, status]),
) as { [C in keyof typeof ERRORS]: (typeof ERRORS)[C]['status'] };

export type ErrorCode = keyof typeof ERRORS;

/** One problem of a rejected input, located by JSON pointer (`/actions/2/url`). */
export interface ValidationProblem {
  path: string;
  problem: string;
}
