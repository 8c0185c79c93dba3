import {
  envelope,
  type ErrorCode,
  failuresQuerySchema,
  inboundMediaQuerySchema,
  OUTBOUND_KINDS,
  type OutboundKind,
  SEND_BODIES,
  sendFailureSchema,
  sentMessageSchema,
} from '@jumbe/contracts';
import { z } from 'zod';
import type { RouteDescription } from '../http/route-description';

/** What a send can fail with; chat actions and look-ups share it. */
export const SEND_ERRORS: ErrorCode[] = [
  'validation_error',
  'invalid_phone',
  'invalid_session_id',
  'session_not_connected',
  'idempotency_conflict',
  'network_error',
  'unavailable',
  'session_restoring',
  'timeout',
];
/** Sends that can be replies: `quotedMessageId` names a message the worker must know (404 otherwise). */
const REPLY_ERRORS: ErrorCode[] = [...SEND_ERRORS, 'message_not_found'];
const sentMessage = envelope(sentMessageSchema);

/** The OpenAPI text of each kind's send route; its body is the contract's (SEND_BODIES). */
const SEND_ROUTE_TEXT: Record<OutboundKind, { summary: string; errors: ErrorCode[] }> = {
  text: { summary: 'Send a text message', errors: REPLY_ERRORS },
  media: {
    summary: 'Send media by URL',
    errors: [...REPLY_ERRORS, 'invalid_media_url', 'media_fetch_failed'],
  },
  interactive: { summary: 'Send buttons, links, copy codes, calls, lists', errors: REPLY_ERRORS },
  location: { summary: 'Share a location (extension)', errors: REPLY_ERRORS },
  contact: { summary: 'Share contact cards (extension; vCards built for you)', errors: REPLY_ERRORS },
  reaction: {
    summary: 'React to a message with an emoji; "" removes the reaction (extension)',
    errors: SEND_ERRORS,
  },
  revoke: {
    summary: 'Delete a message this session sent, for everyone, within 60 hours (extension)',
    errors: [...SEND_ERRORS, 'message_not_found', 'message_not_editable'],
  },
  edit: {
    summary: 'Replace the text of a message this session sent, within 15 minutes (extension)',
    errors: [...SEND_ERRORS, 'message_not_found', 'message_not_editable'],
  },
  poll: {
    summary: 'Send a poll of 2 to 12 options; votes arrive as message.poll_vote (extension)',
    errors: SEND_ERRORS,
  },
  status: {
    summary: 'Post a text, image or video status (story) to the contacts listed (extension)',
    errors: [...SEND_ERRORS, 'invalid_media_url', 'media_fetch_failed'],
  },
};

/** `POST /api/v1/messages/{kind}`, one per kind of the contract's message union. */
function sendRoute(kind: OutboundKind): RouteDescription {
  const { summary, errors } = SEND_ROUTE_TEXT[kind];
  return {
    method: 'POST',
    path: `/api/v1/messages/${kind}`,
    tag: 'Messages',
    summary,
    auth: 'key',
    body: SEND_BODIES[kind].in,
    response: sentMessage,
    errors,
  };
}

/** `POST /api/v1/messages/{kind}`, one per kind of the contract's message union (MessagesController). */
export const SEND_ROUTES: RouteDescription[] = [...OUTBOUND_KINDS.map(sendRoute)];

/** Received media files and the failed-send log, as InboundMediaController and MessagesController serve them. */
export const MESSAGE_LOG_ROUTES: RouteDescription[] = [
  {
    method: 'GET',
    path: '/api/v1/messages/media',
    tag: 'Messages',
    summary: 'The file of a media message a session received, for 7 days after it arrived (extension)',
    auth: 'key',
    query: inboundMediaQuerySchema,
    response: z.string(),
    file: "The file, streamed: `Content-Type` as the sender stated it, `Content-Length`, and `Content-Disposition: attachment` with the sender's file name (documents) or `<messageId>.<extension>`. Files over `JUMBE_MEDIA_MAX_BYTES` (64 MiB) are 422 `media_too_large`; 503 `media_busy` (with `Retry-After`) when the worker is downloading `JUMBE_MEDIA_DOWNLOADS` files already.",
    errors: [
      'validation_error',
      'invalid_session_id',
      'media_not_found',
      'media_expired',
      'media_too_large',
      'media_download_failed',
      'media_busy',
      'unavailable',
      'session_restoring',
      'timeout',
    ],
  },
  {
    method: 'GET',
    path: '/api/v1/messages/failures',
    tag: 'Messages',
    summary: 'Failed sends, newest first',
    auth: 'key',
    query: failuresQuerySchema,
    response: envelope(z.array(sendFailureSchema)),
  },
];
