/**
 * PostgreSQL cannot store U+0000 in `text` or `jsonb`, and `jsonb` refuses JSON escapes of U+0000
 * and of lone UTF-16 surrogates. Any WhatsApp contact can send such a text, and any webhook
 * receiver can answer with one; refused, the row would be retried forever and stop every event
 * behind it. So every value bound to a query is made storable here: U+0000 and lone surrogates
 * (raw, or escaped inside JSON) become U+FFFD, the replacement character. Nothing else changes.
 */
export const REPLACEMENT_CHARACTER = '\uFFFD';

// eslint-disable-next-line no-control-regex -- U+0000 is exactly what PostgreSQL cannot store
const RAW_NUL = /\u0000/g;
const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** `\u0000` or a surrogate escape (`\ud800`–`\udfff`) in JSON text, not itself escaped. */
const JSON_UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})/g;

/** A string PostgreSQL will store, as close to `text` as possible. */
export function storableText(text: string): string {
  let result = SURROGATE.test(text) ? text.replace(LONE_SURROGATE, REPLACEMENT_CHARACTER) : text;
  if (result.includes('\u0000')) result = result.replace(RAW_NUL, REPLACEMENT_CHARACTER);
  if (looksLikeJson(result) && result.includes('\\u')) {
    // JSON.stringify escapes only lone surrogates (valid pairs stay raw), so every surrogate
    // escape left in JSON text is a lone one.
    result = result.replace(JSON_UNSTORABLE_ESCAPE, `$1${REPLACEMENT_CHARACTER}`);
  }
  return result;
}

/** A query parameter made storable (strings, arrays of them, and objects sent as JSON). */
export function storableParameter(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableParameter);
  if (isPlainObject(value)) return storableText(JSON.stringify(value));
  return value;
}

function looksLikeJson(text: string): boolean {
  const first = text.trimStart()[0];
  return first === '{' || first === '[' || first === '"';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
