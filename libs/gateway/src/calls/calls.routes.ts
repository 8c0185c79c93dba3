import { callSettingsBodySchema, callSettingsSchema, envelope, sessionQuerySchema } from '@jumbe/contracts';
import type { RouteDescription } from '../http/route-description';

/** A session's calls setting (README "Calls"), as CallsController serves it. */
export const CALL_ROUTES: RouteDescription[] = [
  {
    method: 'GET',
    path: '/api/v1/session/calls',
    tag: 'Calls',
    summary: "A session's calls setting: whether it rejects calls, and its reply text (extension)",
    auth: 'key',
    query: sessionQuerySchema,
    response: envelope(callSettingsSchema),
    errors: ['invalid_session_id', 'timeout', 'unavailable'],
  },
  {
    method: 'PUT',
    path: '/api/v1/session/calls',
    tag: 'Calls',
    summary:
      'Reject incoming calls automatically, and optionally send the caller a text; the opt-in `call.received` event says whether a call was rejected (extension)',
    auth: 'key',
    body: callSettingsBodySchema,
    response: envelope(callSettingsSchema),
    errors: ['validation_error', 'invalid_session_id', 'timeout', 'unavailable'],
  },
];
