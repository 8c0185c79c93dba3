import { ApiError } from '@jumbe/contracts';
import { RawBody } from './raw-body';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Turns the collected body into JSON, or the contract's error: 413 over the limit, 415 for a body
 * that is not `application/json`, 400 `invalid_json` for JSON that does not parse. An empty body is
 * `undefined` whatever its content type (CONTRACT §1: all-optional POSTs accept an empty body).
 */
export function decodeJsonBody(body: unknown, limitBytes: number): unknown {
  if (!(body instanceof RawBody)) return body;
  if (body.tooLarge) {
    throw new ApiError('payload_too_large', `Request body is larger than the limit of ${limitBytes} bytes.`);
  }
  if (body.bytes.length === 0) return undefined;
  if (!JSON_TYPE.test(body.contentType)) {
    throw new ApiError(
      'unsupported_media_type',
      `Request body must be JSON sent with Content-Type: application/json (got ${body.contentType ? `"${body.contentType}"` : 'no Content-Type'}).`,
    );
  }
  const text = body.bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError('invalid_json', `Request body is not valid JSON: ${(error as Error).message}`);
  }
}
