import { contactCheckQuerySchema, contactCheckResultSchema, envelope } from '@jumbe/contracts';
import { SEND_ERRORS } from '../messages/messages.routes';
import type { RouteDescription } from '../http/route-description';

/** Number lookups, as ContactsController serves them. */
export const CONTACT_ROUTES: RouteDescription[] = [
  {
    method: 'GET',
    path: '/api/v1/contacts/check',
    tag: 'Chats',
    summary:
      'Whether a number is on WhatsApp, and the id to send it to; rate-limited per session (extension)',
    auth: 'key',
    query: contactCheckQuerySchema,
    response: envelope(contactCheckResultSchema),
    errors: [...SEND_ERRORS, 'invalid_phone'],
  },
];
