import type { FastifyRequest } from 'fastify';

/**
 * The header the dashboard (`/dashboard`) sends on its reads. The spec puts dashboard operations
 * outside the API, so such a read is not an API hit (CONTRACT §11, as amended for issue 31).
 */
export const DASHBOARD_HEADER = 'x-jumbe-dashboard';

/**
 * Uncounted dashboard reads an account may make per minute (all its keys and tabs together). A
 * dashboard tab polls only what it shows and pauses while hidden (about 20 reads a minute); past
 * the allowance a read is counted like any other, so a script that sends the header gains at most
 * this many free reads a minute, of the few routes below, and never a write.
 */
export const DASHBOARD_READS_PER_MINUTE = 60;

/**
 * The reads the dashboard shows: listings and settings of the account's own records. Routes that
 * cost the messaging network something (`/contacts/check`) or move files (`/messages/media`) stay
 * counted whoever calls them.
 */
const DASHBOARD_READ_ROUTES = new Set([
  '/api/v1/usage',
  '/api/v1/sessions',
  '/api/v1/session/status',
  '/api/v1/session/qr',
  '/api/v1/messages/failures',
  '/api/v1/webhook',
  '/api/v1/keys',
  '/api/v1/sandbox/outbox',
  '/api/v1/events',
]);

/** A GET of a dashboard route that carries the dashboard header: a candidate for the allowance. */
export function isDashboardRead(request: FastifyRequest): boolean {
  if (request.method !== 'GET') return false;
  if (request.headers[DASHBOARD_HEADER] !== '1') return false;
  return DASHBOARD_READ_ROUTES.has(request.routeOptions.url ?? '');
}
