import { envelope } from '@jumbe/contracts';
import { z } from 'zod';
import type { RouteDescription } from '../http/route-description';

/** A dashboard sign-in's answer (CONTRACT §11): the token is shown this once. */
const dashboardSignInSchema = z.object({
  token: z.string(),
  expiresAt: z.string(),
  scope: z.enum(['full', 'read']),
});

/** Dashboard sign-in with an API key (CONTRACT §11), as DashboardSessionsController serves it. */
export const DASHBOARD_ROUTES: RouteDescription[] = [
  {
    method: 'POST',
    path: '/api/v1/dashboard/sessions',
    tag: 'Dashboard',
    summary:
      'Sign in to the dashboard with the API key: a token (Authorization: Bearer) whose requests are not API hits, 120 a minute, for 12 hours (extension)',
    auth: 'key',
    response: envelope(dashboardSignInSchema),
    successStatus: 201,
  },
  {
    method: 'DELETE',
    path: '/api/v1/dashboard/sessions/current',
    tag: 'Dashboard',
    summary: 'Sign out: ends the dashboard session whose token the request carries (extension)',
    auth: 'key',
    response: envelope(z.object({ signedOut: z.literal(true) })),
    errors: ['validation_error'],
  },
];
