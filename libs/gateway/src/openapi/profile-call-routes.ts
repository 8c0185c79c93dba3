import {
  callSettingsBodySchema,
  callSettingsSchema,
  contactBlockResultSchema,
  contactBlockSchema,
  contactProfileQuerySchema,
  contactProfileSchema,
  envelope,
  type ErrorCode,
  profileSchema,
  profileUpdateResultSchema,
  profileUpdateSchema,
  sandboxCallSchema,
  sessionQuerySchema,
} from '@jumbe/contracts';
import { z } from 'zod';
import type { RouteDescription } from './route-catalogue';

/** What a profile action answers when the session or network cannot do it (as chat actions). */
const ACTION_ERRORS: ErrorCode[] = [
  'validation_error',
  'invalid_session_id',
  'session_not_connected',
  'network_error',
  'timeout',
  'unavailable',
];

/** Profiles and calls (CONTRACT §11, README "Profiles" and "Calls"). */
export const PROFILE_CALL_ROUTES: RouteDescription[] = [
  {
    method: 'GET',
    path: '/api/v1/profile',
    tag: 'Profiles',
    summary: "The number's display name, about and picture URL (extension)",
    auth: 'key',
    query: sessionQuerySchema,
    response: envelope(profileSchema),
    errors: ACTION_ERRORS,
  },
  {
    method: 'PUT',
    path: '/api/v1/profile',
    tag: 'Profiles',
    summary:
      "Change the number's display name, about and/or picture (from a public URL, fetched like media, or base64 in `pictureData`; JPEG or PNG, at most 512 KiB) (extension)",
    auth: 'key',
    body: profileUpdateSchema,
    response: envelope(profileUpdateResultSchema),
    errors: [...ACTION_ERRORS, 'invalid_media_url', 'media_fetch_failed'],
  },
  {
    method: 'GET',
    path: '/api/v1/contacts/profile',
    tag: 'Profiles',
    summary:
      "A contact's picture URL and about; counted with /contacts/check against the session's 20 look-ups a minute (extension)",
    auth: 'key',
    query: contactProfileQuerySchema,
    response: envelope(contactProfileSchema),
    errors: [...ACTION_ERRORS, 'invalid_phone', 'rate_limited'],
  },
  {
    method: 'POST',
    path: '/api/v1/contacts/block',
    tag: 'Profiles',
    summary: 'Block a contact (extension)',
    auth: 'key',
    body: contactBlockSchema,
    response: envelope(contactBlockResultSchema),
    errors: [...ACTION_ERRORS, 'invalid_phone'],
  },
  {
    method: 'POST',
    path: '/api/v1/contacts/unblock',
    tag: 'Profiles',
    summary: 'Unblock a contact (extension)',
    auth: 'key',
    body: contactBlockSchema,
    response: envelope(contactBlockResultSchema),
    errors: [...ACTION_ERRORS, 'invalid_phone'],
  },
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
  {
    method: 'POST',
    path: '/api/v1/sandbox/call',
    tag: 'Sandbox',
    network: 'sandbox',
    summary: 'Sandbox: a contact calls the number (a `call.received` event follows)',
    auth: 'key',
    body: sandboxCallSchema,
    response: envelope(z.object({ callId: z.string() })),
    errors: ['validation_error', 'invalid_session_id', 'invalid_phone', 'session_not_connected'],
  },
];
