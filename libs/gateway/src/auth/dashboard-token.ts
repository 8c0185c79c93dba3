import { hash, randomBytes } from 'node:crypto';

/** Dashboard session tokens start so: told apart from API keys (`jmb_…`) on sight. */
export const DASHBOARD_TOKEN_PREFIX = 'jds_';

const TOKEN_FORM = /^jds_[A-Za-z0-9_-]{43}$/;

/** A new dashboard session token: 256 random bits, shown to the signing-in tab only. */
export function generateDashboardToken(): string {
  return DASHBOARD_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** The stored form of a token: random tokens need no stretching, and an index finds the hash. */
export function hashDashboardToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/**
 * The hash of the dashboard token a request presents as `Authorization: Bearer jds_…`, or null
 * when it presents none (an API key, or nothing: the key path judges those). A request that also
 * sends `x-api-key` is the key path's too, which refuses two different credentials.
 */
export function presentedDashboardTokenHash(
  headers: Record<string, string | string[] | undefined>,
): string | null {
  if (headers['x-api-key'] !== undefined) return null;
  const authorization = headers['authorization'];
  if (typeof authorization !== 'string') return null;
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  return token !== undefined && TOKEN_FORM.test(token) ? hashDashboardToken(token) : null;
}
