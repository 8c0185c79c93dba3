import {
  contactBlockResultSchema,
  contactBlockSchema,
  contactProfileQuerySchema,
  contactProfileSchema,
  envelope,
  profileSchema,
  profileUpdateResultSchema,
  profileUpdateSchema,
  sessionQuerySchema,
} from '@jumbe/contracts';
import { type RouteDescription, SESSION_ACTION_ERRORS } from '../http/route-description';

const ACTION_ERRORS = [...SESSION_ACTION_ERRORS];

/** The number's profile and contacts' profiles and blocking (CONTRACT §11, README "Profiles"), as ProfileController and ContactProfileController serve them. */
export const PROFILE_ROUTES: RouteDescription[] = [
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
];
