/** Why a delivery was rejected. */
export type WebhookVerificationReason =
  /** No `X-Service-Signature` header. */
  | 'missing_signature'
  /** No `X-Service-Timestamp` header. */
  | 'missing_timestamp'
  /** No signing secret was configured (for example an unset environment variable). */
  | 'missing_secret'
  /** The signature does not match the raw body, the timestamp and the secret. */
  | 'bad_signature'
  /** Correctly signed, but the timestamp is older than the tolerance: possibly a replay. */
  | 'timestamp_too_old'
  /** Correctly signed, but the timestamp is further in the future than the tolerance: check the clock. */
  | 'timestamp_in_future'
  /** Not a delivery at all: a header or the body does not have the expected form. */
  | 'malformed';

/** Thrown by `verifyDelivery` when a request must be rejected. Route on `reason`, log `message`. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}
