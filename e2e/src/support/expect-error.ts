import type { HttpResult } from '@jumbe/testing';

/**
 * Asserts the contract's error envelope: the status, the code, and a message long enough to tell
 * the user what to fix. On a mismatch the body is shown, which is what one needs to debug it.
 */
export function expectError(response: HttpResult, status: number, code: string): void {
  expect({
    status: response.status,
    code: response.body?.error?.code,
    text: response.status === status ? '' : response.text,
  }).toEqual({ status, code, text: '' });
  expect(typeof response.body.message).toBe('string');
  expect(response.body.message.length).toBeGreaterThan(10);
}
