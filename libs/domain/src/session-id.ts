/** CONTRACT §4: 1–64 characters of letters, digits, `_` and `-`; per account; default `default`. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const DEFAULT_SESSION_ID = 'default';

export function isValidSessionId(value: string): boolean {
  return SESSION_ID_PATTERN.test(value);
}
