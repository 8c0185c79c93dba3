import { envelope, usageSchema } from '@jumbe/contracts';
import type { RouteDescription } from '../http/route-description';

/** `GET /usage`, as UsageController serves it. */
export const USAGE_ROUTES: RouteDescription[] = [
  {
    method: 'GET',
    path: '/api/v1/usage',
    tag: 'Account',
    summary: 'Plan, billing cycle, usage counters and API hits per day of the cycle (hitsPerDay)',
    auth: 'key',
    response: envelope(usageSchema),
  },
];
