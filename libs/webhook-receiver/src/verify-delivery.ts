import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors';
import type { WebhookEvent } from './events';

/**
 * Request headers: a Node/Express/Fastify headers object (any letter case, values may be arrays)
 * or a Fetch API `Headers`.
 */
export type DeliveryHeaders =
  | Readonly<Record<string, string | readonly string[] | number | undefined | null>>
  | { get(name: string): string | null };

export interface VerifyDeliveryOptions {
  /** The raw request body exactly as received. Never a parsed and re-serialised object. */
  body: Buffer | Uint8Array | string;
  headers: DeliveryHeaders;
  /**
   * The account's signing secret (`whsec_…`). While rotating, pass `[newSecret, oldSecret]`: a
   * delivery signed by either is accepted. `undefined` or `''` is rejected as `missing_secret`.
   */
  secret: string | readonly string[] | undefined | null;
  /** Largest accepted distance between `X-Service-Timestamp` and now, either way. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time (for tests). Default `Date.now()`. */
  now?: Date | number;
}

export interface VerifiedDelivery<T = WebhookEvent> {
  /** The delivery id to de-duplicate on (`X-Service-Delivery`, and `deliveryId` in the signed body). */
  deliveryId: string;
  /** The event type (`X-Service-Event`, and `event` in the signed body). */
  event: string;
  /** When the delivery was signed (`X-Service-Timestamp`). */
  timestamp: Date;
  /** The parsed JSON body. */
  payload: T;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Verifies one webhook delivery as the Jumbe interface spec tells receivers to:
 * `X-Service-Signature` must be `sha256=` + HMAC-SHA256 (keyed with the whole secret string) of
 * `<X-Service-Timestamp>.<raw body>`, compared in constant time; the timestamp must be within
 * `toleranceSeconds` of now. Returns the delivery id, the event type, the signed time and the parsed
 * body, or throws a `WebhookVerificationError` whose `reason` says why.
 */
export function verifyDelivery<T = WebhookEvent>(options: VerifyDeliveryOptions): VerifiedDelivery<T> {
  const { headers, toleranceSeconds = DEFAULT_TOLERANCE_SECONDS } = options;
  if (typeof toleranceSeconds !== 'number' || Number.isNaN(toleranceSeconds) || toleranceSeconds < 0) {
    throw new TypeError('toleranceSeconds must be a number >= 0');
  }
  const secrets = secretList(options.secret);
  if (secrets.length === 0) {
    throw new WebhookVerificationError('missing_secret', 'No webhook signing secret is configured');
  }
  const body = rawBytes(options.body);

  const signatureHeader = header(headers, 'x-service-signature');
  if (signatureHeader === undefined) {
    throw new WebhookVerificationError('missing_signature', 'The X-Service-Signature header is missing');
  }
  const timestampHeader = header(headers, 'x-service-timestamp');
  if (timestampHeader === undefined) {
    throw new WebhookVerificationError('missing_timestamp', 'The X-Service-Timestamp header is missing');
  }
  const match = SIGNATURE.exec(signatureHeader);
  if (!match) {
    throw new WebhookVerificationError(
      'malformed',
      'The X-Service-Signature header is not sha256=<64 hex digits>',
    );
  }
  const received = Buffer.from(match[1], 'hex');
  let valid = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(`${timestampHeader}.`, 'utf8')
      .update(body)
      .digest();
    // Both are 32 bytes: the regex above admits exactly 64 hex digits.
    if (timingSafeEqual(expected, received)) valid = true;
  }
  if (!valid) {
    throw new WebhookVerificationError(
      'bad_signature',
      'The signature does not match: wrong secret, or the body is not the raw body as received',
    );
  }

  const signedAt = ISO_TIMESTAMP.test(timestampHeader) ? Date.parse(timestampHeader) : NaN;
  if (!Number.isFinite(signedAt)) {
    throw new WebhookVerificationError('malformed', 'The X-Service-Timestamp header is not an ISO 8601 time');
  }
  const now = options.now === undefined ? Date.now() : +options.now;
  const toleranceMs = toleranceSeconds * 1000;
  if (now - signedAt > toleranceMs) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `The delivery was signed ${Math.round((now - signedAt) / 1000)} s ago, more than the ${toleranceSeconds} s tolerance`,
    );
  }
  if (signedAt - now > toleranceMs) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `The delivery is dated ${Math.round((signedAt - now) / 1000)} s in the future, more than the ${toleranceSeconds} s tolerance`,
    );
  }

  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('malformed', 'The body is not JSON');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new WebhookVerificationError('malformed', 'The body is not a JSON object');
  }
  const fields = payload as Record<string, unknown>;
  const deliveryId = agree(
    fields.deliveryId,
    header(headers, 'x-service-delivery'),
    'deliveryId',
    'X-Service-Delivery',
  );
  const event = agree(fields.event, header(headers, 'x-service-event'), 'event', 'X-Service-Event');
  return { deliveryId, event, timestamp: new Date(signedAt), payload: payload as T };
}

function secretList(secret: VerifyDeliveryOptions['secret']): string[] {
  const list = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  return list.filter((s): s is string => typeof s === 'string' && s.length > 0);
}

function rawBytes(body: unknown): Buffer {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new WebhookVerificationError(
    'malformed',
    `The body must be the raw request body (Buffer or string), got ${body === null ? 'null' : typeof body}; ` +
      'read it before any JSON body parser runs',
  );
}

/** A header's value, looked up case-insensitively; `undefined` when absent or empty. */
function header(headers: DeliveryHeaders, lowerName: string): string | undefined {
  let value: unknown;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    value = (headers as { get(name: string): string | null }).get(lowerName);
  } else {
    const record = headers as Record<string, unknown>;
    value = record[lowerName];
    if (value === undefined) {
      for (const key of Object.keys(record)) {
        if (key.toLowerCase() === lowerName) {
          value = record[key];
          break;
        }
      }
    }
  }
  if (Array.isArray(value)) {
    if (value.length > 1) {
      throw new WebhookVerificationError('malformed', `The ${lowerName} header appears more than once`);
    }
    value = value[0];
  }
  if (typeof value === 'number') value = String(value);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed.length === 0 ? undefined : trimmed;
}

/** The signed body field, which must agree with the (unsigned) header when both are present. */
function agree(signed: unknown, fromHeader: string | undefined, field: string, headerName: string): string {
  if (signed !== undefined && (typeof signed !== 'string' || signed.length === 0)) {
    throw new WebhookVerificationError('malformed', `The body's ${field} is not a non-empty string`);
  }
  if (signed !== undefined && fromHeader !== undefined && signed !== fromHeader) {
    throw new WebhookVerificationError(
      'malformed',
      `The ${headerName} header does not match the body's ${field}`,
    );
  }
  const value = signed ?? fromHeader;
  if (value === undefined) {
    throw new WebhookVerificationError(
      'malformed',
      `Neither a ${headerName} header nor a ${field} in the body`,
    );
  }
  return value;
}
