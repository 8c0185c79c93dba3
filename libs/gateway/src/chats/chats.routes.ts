import {
  chatPresenceResultSchema,
  chatPresenceSchema,
  chatReadResultSchema,
  chatReadSchema,
  envelope,
} from '@jumbe/contracts';
import { SEND_ERRORS } from '../messages/messages.routes';
import type { RouteDescription } from '../http/route-description';

/** Chat actions, as ChatsController serves them. */
export const CHAT_ROUTES: RouteDescription[] = [
  {
    method: 'POST',
    path: '/api/v1/chats/read',
    tag: 'Chats',
    summary: 'Mark received messages of a chat as read: blue ticks (extension)',
    auth: 'key',
    body: chatReadSchema,
    response: envelope(chatReadResultSchema),
    errors: SEND_ERRORS,
  },
  {
    method: 'POST',
    path: '/api/v1/chats/presence',
    tag: 'Chats',
    summary: 'Show "typing…" or "recording audio…" in a chat, until `paused` (extension)',
    auth: 'key',
    body: chatPresenceSchema,
    response: envelope(chatPresenceResultSchema),
    errors: SEND_ERRORS,
  },
];
