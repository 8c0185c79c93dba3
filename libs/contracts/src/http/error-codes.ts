/** Every error code of the wire contract (CONTRACT §2) and the HTTP status it always travels with. */
export const ERROR_STATUS = {
  validation_error: 400,
  invalid_json: 400,
  invalid_phone: 400,
  invalid_session_id: 400,
  invalid_media_url: 400,
  invalid_webhook_url: 400,
  unauthorized: 401,
  monthly_limit_reached: 402,
  forbidden: 403,
  account_suspended: 403,
  instance_limit_reached: 403,
  not_found: 404,
  conflict: 409,
  session_not_connected: 409,
  number_in_use: 409,
  session_not_ready: 409,
  webhook_not_enabled: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  network_error: 502,
  media_fetch_failed: 502,
  unavailable: 503,
  session_restoring: 503,
  timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One problem of a rejected input, located by JSON pointer (`/actions/2/url`). */
export interface ValidationProblem {
  path: string;
  problem: string;
}
