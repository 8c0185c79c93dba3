/** `full` keys reach every route; `read` keys only GET routes (CONTRACT §3). */
export const KEY_SCOPES = ['full', 'read'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export function scopeAllows(scope: KeyScope, httpMethod: string): boolean {
  return scope === 'full' || httpMethod === 'GET' || httpMethod === 'HEAD';
}
