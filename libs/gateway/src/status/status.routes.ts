import { healthSchema, statusDocumentSchema } from '@jumbe/contracts';
import type { RouteDescription } from '../http/route-description';

/** The status document and health (the health route is served by @jumbe/platform's HealthModule). */
export const STATUS_ROUTES: RouteDescription[] = [
  {
    method: 'GET',
    path: '/',
    tag: 'Status',
    summary: 'Status document',
    auth: 'none',
    response: statusDocumentSchema,
  },
  {
    method: 'GET',
    path: '/api/v1',
    tag: 'Status',
    summary: 'Status document',
    auth: 'none',
    response: statusDocumentSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/health',
    tag: 'Status',
    summary: 'Health of this process and its dependencies',
    auth: 'none',
    response: healthSchema,
    successBodyOn: { 503: 'A dependency is unavailable: the same health document, naming it in `checks`.' },
  },
];
