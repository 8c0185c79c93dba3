/** Why an outbound request failed, as a stable word for records and metrics. */
export type EgressErrorCode =
  'invalid_url' | 'blocked_address' | 'timeout' | 'connection_failed' | 'too_large' | 'bad_status';

/**
 * Base of every failure safeFetch and safeDownload throw. `message` is short and safe to store in a
 * delivery record or show to the customer: it names the URL's host, never internal details.
 */
export abstract class EgressError extends Error {
  abstract readonly code: EgressErrorCode;
}
