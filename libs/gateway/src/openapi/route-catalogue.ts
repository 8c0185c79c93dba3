import {
  accountSchema,
  apiKeySchema,
  createAccountSchema,
  createKeySchema,
  createPlanSchema,
  deliveryParamsSchema,
  deliverySchema,
  envelope,
  failuresQuerySchema,
  OUTBOUND_KINDS,
  type OutboundKind,
  SEND_BODIES,
  inboundMediaQuerySchema,
  healthSchema,
  outboxEntrySchema,
  pairingCodeResultSchema,
  pairingCodeSchema,
  planSchema,
  qrQuerySchema,
  qrSchema,
  sandboxDisconnectSchema,
  sandboxInboundSchema,
  sandboxOutboxQuerySchema,
  sandboxScanSchema,
  sandboxStatusSchema,
  sendFailureSchema,
  chatPresenceResultSchema,
  chatPresenceSchema,
  chatReadResultSchema,
  chatReadSchema,
  contactCheckQuerySchema,
  contactCheckResultSchema,
  sentMessageSchema,
  sessionBodySchema,
  sessionProxyBodySchema,
  sessionProxySchema,
  sessionListSchema,
  sessionQuerySchema,
  sessionSchema,
  sessionsQuerySchema,
  statusDocumentSchema,
  updateAccountSchema,
  updatePlanSchema,
  updateWebhookSchema,
  usageSchema,
  sandboxStatusResultSchema,
  webhookConfigSchema,
  webhookStateSchema,
  type ErrorCode,
} from '@jumbe/contracts';
import type { JumbeConfig } from '@jumbe/config';
import { eventStreamFrameSchema } from '../events/event-stream-frame.schema';
import { eventStreamQuerySchema } from '../events/event-stream-query';
import { PROFILE_CALL_ROUTES } from './profile-call-routes';
import { GROUP_ROUTES } from './group-routes';
import { z } from 'zod';

export type RouteAuth = 'none' | 'key' | 'admin';

/** The messaging network a deployment runs on (JUMBE_NETWORK). */
export type NetworkName = JumbeConfig['network'];

/** One route of the public contract, described from the same schemas that validate it. */
export interface RouteDescription {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  tag: string;
  summary: string;
  auth: RouteAuth;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  response: z.ZodType;
  /** The success response is a file, described here, instead of `response` as JSON. */
  file?: string;
  /** Other media types the success response comes in (chosen by the request), each described. */
  alsoAnswers?: Record<string, string>;
  /** Error statuses answered with the success body instead of the error envelope, each described. */
  successBodyOn?: Record<number, string>;
  successStatus?: number;
  errors?: ErrorCode[];
  /** Served only on this network: the sandbox's control routes do not exist on WhatsApp (CONTRACT §9). */
  network?: NetworkName;
}

const SEND_ERRORS: ErrorCode[] = [
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
const session = envelope(sessionSchema);
/** An operator's dashboard sign-in's answer: the token is shown this once. */
const operatorSignInSchema = z.object({
  token: z.string(),
  expiresAt: z.string(),
  scope: z.literal('admin'),
});
/** A dashboard sign-in's answer (CONTRACT §11): the token is shown this once. */
const dashboardSignInSchema = z.object({
  token: z.string(),
  expiresAt: z.string(),
  scope: z.enum(['full', 'read']),
});
const accountKeyParams = z.object({ id: z.string(), keyId: z.string() });
const accountParams = z.object({ id: z.string() });
/** This document's own shape, as far as a client relies on it (the rest is OpenAPI's). */
const openApiDocumentSchema = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

/** Every route of CONTRACT.md, in reading order. The OpenAPI document is generated from this list. */
export const ROUTES: RouteDescription[] = [
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
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    tag: 'Status',
    summary: 'This OpenAPI document (human docs at /docs)',
    auth: 'none',
    response: openApiDocumentSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/usage',
    tag: 'Account',
    summary: 'Plan, billing cycle, usage counters and API hits per day of the cycle (hitsPerDay)',
    auth: 'key',
    response: envelope(usageSchema),
  },
  {
    method: 'GET',
    path: '/api/v1/sessions',
    tag: 'Sessions',
    summary: 'List the sessions of the account (every one, or a page of them with limit/cursor)',
    auth: 'key',
    query: sessionsQuerySchema,
    response: sessionListSchema,
    errors: ['validation_error'],
  },
  {
    method: 'POST',
    path: '/api/v1/session/start',
    tag: 'Sessions',
    summary: 'Start a session (idempotent) and prepare the QR login',
    auth: 'key',
    body: sessionBodySchema,
    response: session,
    // network_error: the network could not be reached, e.g. through the session's own proxy.
    errors: [
      'invalid_session_id',
      'instance_limit_reached',
      'network_error',
      'unavailable',
      'session_restoring',
      'timeout',
    ],
  },
  {
    method: 'GET',
    path: '/api/v1/session/status',
    tag: 'Sessions',
    summary: 'Session state',
    auth: 'key',
    query: sessionQuerySchema,
    response: session,
    errors: ['invalid_session_id'],
  },
  {
    method: 'GET',
    path: '/api/v1/session/qr',
    tag: 'Sessions',
    summary: 'QR value to scan (JSON, or PNG/SVG with format=)',
    auth: 'key',
    query: qrQuerySchema,
    response: envelope(qrSchema),
    alsoAnswers: {
      'image/svg+xml': 'With `format=svg`: the QR as an SVG document.',
      'image/png': 'With `format=png`: the QR as a PNG image.',
    },
    errors: ['invalid_session_id', 'not_found'],
  },
  {
    method: 'POST',
    path: '/api/v1/session/pairing-code',
    tag: 'Sessions',
    summary: 'Link with a pairing code instead of a QR',
    auth: 'key',
    body: pairingCodeSchema,
    response: envelope(pairingCodeResultSchema),
    errors: ['invalid_phone', 'instance_limit_reached', 'number_in_use'],
  },
  {
    method: 'POST',
    path: '/api/v1/session/logout',
    tag: 'Sessions',
    summary: 'Disconnect and clear stored credentials (idempotent)',
    auth: 'key',
    body: sessionBodySchema,
    response: session,
  },
  {
    method: 'DELETE',
    path: '/api/v1/session',
    tag: 'Sessions',
    summary: 'Log out if needed and remove the session',
    auth: 'key',
    query: sessionQuerySchema,
    response: session,
    errors: ['invalid_session_id', 'not_found'],
  },
  {
    method: 'GET',
    path: '/api/v1/session/proxy',
    tag: 'Sessions',
    summary: "The session's own proxy, password masked; null when it connects directly (extension)",
    auth: 'key',
    query: sessionQuerySchema,
    response: envelope(sessionProxySchema),
    errors: ['invalid_session_id'],
  },
  {
    method: 'PUT',
    path: '/api/v1/session/proxy',
    tag: 'Sessions',
    summary:
      "Set the session's own HTTP(S) or SOCKS5 proxy for its WhatsApp connection and media; a linked session reconnects through it (extension)",
    auth: 'key',
    body: sessionProxyBodySchema,
    response: envelope(sessionProxySchema),
    errors: ['invalid_session_id', 'invalid_proxy_url', 'network_error'],
  },
  {
    method: 'DELETE',
    path: '/api/v1/session/proxy',
    tag: 'Sessions',
    summary: "Remove the session's own proxy: a linked session reconnects directly (extension)",
    auth: 'key',
    query: sessionQuerySchema,
    response: envelope(sessionProxySchema),
    errors: ['invalid_session_id', 'network_error'],
  },
  ...OUTBOUND_KINDS.map(sendRoute),
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
  ...PROFILE_CALL_ROUTES,
  ...GROUP_ROUTES,
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
  {
    method: 'GET',
    path: '/api/v1/webhook',
    tag: 'Webhook',
    summary: 'Webhook configuration and the 20 newest deliveries',
    auth: 'key',
    response: envelope(webhookStateSchema),
  },
  {
    method: 'PATCH',
    path: '/api/v1/webhook',
    tag: 'Webhook',
    summary: 'Save the webhook: URL, events, opt-in retry (secret shown on first save and rotation only)',
    auth: 'key',
    body: updateWebhookSchema,
    response: envelope(webhookConfigSchema).extend({ secret: z.string().optional() }),
    errors: ['invalid_webhook_url'],
  },
  {
    method: 'DELETE',
    path: '/api/v1/webhook',
    tag: 'Webhook',
    summary: 'Remove the webhook and its secret',
    auth: 'key',
    response: envelope(webhookConfigSchema),
  },
  {
    method: 'POST',
    path: '/api/v1/webhook/test',
    tag: 'Webhook',
    summary: 'Send a signed webhook.test event',
    auth: 'key',
    response: envelope(z.object({ delivery: deliverySchema })),
    errors: ['webhook_not_enabled'],
  },
  {
    method: 'POST',
    path: '/api/v1/webhook/deliveries/{id}/redeliver',
    tag: 'Webhook',
    summary: 'Send a recorded event again as a new delivery',
    auth: 'key',
    params: deliveryParamsSchema,
    response: envelope(z.object({ delivery: deliverySchema })),
    errors: ['webhook_not_enabled', 'not_found'],
  },
  {
    method: 'POST',
    path: '/api/v1/sandbox/scan',
    tag: 'Sandbox',
    network: 'sandbox',
    summary: 'Sandbox: a phone scans the QR or enters the pairing code',
    auth: 'key',
    body: sandboxScanSchema,
    response: session,
    errors: ['number_in_use', 'session_not_ready'],
  },
  {
    method: 'POST',
    path: '/api/v1/sandbox/inbound',
    tag: 'Sandbox',
    network: 'sandbox',
    summary: 'Sandbox: a contact sends a message',
    auth: 'key',
    body: sandboxInboundSchema,
    response: envelope(z.object({ id: z.string() })),
    errors: ['invalid_session_id', 'session_not_connected'],
  },
  {
    method: 'GET',
    path: '/api/v1/sandbox/outbox',
    tag: 'Sandbox',
    network: 'sandbox',
    summary: 'Sandbox: what the network received',
    auth: 'key',
    query: sandboxOutboxQuerySchema,
    response: envelope(z.array(outboxEntrySchema)),
  },
  {
    method: 'POST',
    path: '/api/v1/sandbox/disconnect',
    tag: 'Sandbox',
    network: 'sandbox',
    summary: 'Sandbox: the network drops the session or the phone unlinks it',
    auth: 'key',
    body: sandboxDisconnectSchema,
    response: session,
  },
  {
    method: 'POST',
    path: '/api/v1/sandbox/status',
    tag: 'Sandbox',
    network: 'sandbox',
    summary:
      "Sandbox: the recipient's phone marks a sent message delivered, read or played (→ message.status)",
    auth: 'key',
    body: sandboxStatusSchema,
    response: envelope(sandboxStatusResultSchema),
    errors: ['not_found', 'session_not_connected'],
  },
  {
    method: 'GET',
    path: '/api/v1/events',
    tag: 'Events',
    summary:
      "Live event stream: the account's webhook events as they happen, over a WebSocket (subprotocol `jumbe.v1`; a browser may offer its key as `jumbe.key.<key>`) or as Server-Sent Events (`Accept: text/event-stream`). Resumable after the last id (`Last-Event-ID` or `since`); one API hit per stream opened; at most 5 open per account on each gateway (429 beyond). See docs/event-stream.md.",
    auth: 'key',
    query: eventStreamQuerySchema,
    response: eventStreamFrameSchema,
    alsoAnswers: {
      'text/event-stream':
        'Server-Sent Events: `id: <seq>`, `event: <type>`, `data: <the webhook event as JSON>` per event, a `stream.start` frame first, a `: heartbeat` comment every 15 s.',
    },
    errors: ['validation_error', 'rate_limited', 'unavailable'],
  },
  {
    method: 'GET',
    path: '/api/v1/keys',
    tag: 'Keys',
    summary: "List the account's API keys (full scope)",
    auth: 'key',
    response: envelope(z.array(apiKeySchema)),
    errors: ['forbidden'],
  },
  {
    method: 'POST',
    path: '/api/v1/keys',
    tag: 'Keys',
    summary: 'Create an API key for the account (full scope; the key is shown once)',
    auth: 'key',
    body: createKeySchema,
    response: envelope(apiKeySchema).extend({ key: z.string() }),
    successStatus: 201,
    errors: ['forbidden', 'validation_error'],
  },
  {
    method: 'DELETE',
    path: '/api/v1/keys/{id}',
    tag: 'Keys',
    summary: "Revoke one of the account's API keys (full scope)",
    auth: 'key',
    params: accountParams,
    response: envelope(apiKeySchema),
    errors: ['forbidden', 'not_found'],
  },
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
  {
    method: 'POST',
    path: '/api/v1/admin/dashboard-sessions',
    tag: 'Dashboard',
    summary:
      'Sign in to the dashboard as the operator with the admin token: a token for the admin routes, 120 a minute, for 12 hours (extension)',
    auth: 'admin',
    response: envelope(operatorSignInSchema),
    successStatus: 201,
    errors: ['rate_limited'],
  },
  {
    method: 'DELETE',
    path: '/api/v1/admin/dashboard-sessions/current',
    tag: 'Dashboard',
    summary: "Sign out: ends the operator's dashboard session whose token the request carries (extension)",
    auth: 'admin',
    response: envelope(z.object({ signedOut: z.literal(true) })),
    errors: ['rate_limited'],
  },
  {
    method: 'POST',
    path: '/api/v1/admin/plans',
    tag: 'Admin',
    summary: 'Create a plan',
    auth: 'admin',
    body: createPlanSchema,
    response: envelope(planSchema),
    successStatus: 201,
    errors: ['conflict'],
  },
  {
    method: 'GET',
    path: '/api/v1/admin/plans',
    tag: 'Admin',
    summary: 'List plans',
    auth: 'admin',
    response: envelope(z.array(planSchema)),
  },
  {
    method: 'PATCH',
    path: '/api/v1/admin/plans/{id}',
    tag: 'Admin',
    summary: "Change a plan's limits (every account on it at once)",
    auth: 'admin',
    params: accountParams,
    body: updatePlanSchema,
    response: envelope(planSchema),
    errors: ['not_found'],
  },
  {
    method: 'POST',
    path: '/api/v1/admin/accounts',
    tag: 'Admin',
    summary: 'Create an account',
    auth: 'admin',
    body: createAccountSchema,
    response: envelope(accountSchema),
    successStatus: 201,
  },
  {
    method: 'GET',
    path: '/api/v1/admin/accounts',
    tag: 'Admin',
    summary: 'List accounts',
    auth: 'admin',
    response: envelope(z.array(accountSchema)),
  },
  {
    method: 'GET',
    path: '/api/v1/admin/accounts/{id}',
    tag: 'Admin',
    summary: 'Get an account',
    auth: 'admin',
    params: accountParams,
    response: envelope(accountSchema),
    errors: ['not_found'],
  },
  {
    method: 'GET',
    path: '/api/v1/admin/accounts/{id}/usage',
    tag: 'Admin',
    summary: "An account's usage this cycle (as GET /usage shows it)",
    auth: 'admin',
    params: accountParams,
    response: envelope(usageSchema),
    errors: ['not_found'],
  },
  {
    method: 'GET',
    path: '/api/v1/admin/accounts/{id}/sessions',
    tag: 'Admin',
    summary: "An account's sessions",
    auth: 'admin',
    params: accountParams,
    response: envelope(z.array(sessionSchema)),
    errors: ['not_found'],
  },
  {
    method: 'PATCH',
    path: '/api/v1/admin/accounts/{id}',
    tag: 'Admin',
    summary: 'Change plan or suspend',
    auth: 'admin',
    params: accountParams,
    body: updateAccountSchema,
    response: envelope(accountSchema),
    errors: ['not_found'],
  },
  {
    method: 'POST',
    path: '/api/v1/admin/accounts/{id}/keys',
    tag: 'Admin',
    summary: 'Create an API key (shown once)',
    auth: 'admin',
    params: accountParams,
    body: createKeySchema,
    response: envelope(apiKeySchema).extend({ key: z.string() }),
    successStatus: 201,
    errors: ['not_found'],
  },
  {
    method: 'GET',
    path: '/api/v1/admin/accounts/{id}/keys',
    tag: 'Admin',
    summary: 'List API keys',
    auth: 'admin',
    params: accountParams,
    response: envelope(z.array(apiKeySchema)),
    errors: ['not_found'],
  },
  {
    method: 'DELETE',
    path: '/api/v1/admin/accounts/{id}/keys/{keyId}',
    tag: 'Admin',
    summary: 'Revoke an API key',
    auth: 'admin',
    params: accountKeyParams,
    response: envelope(apiKeySchema),
    errors: ['not_found'],
  },
];

/** The routes a deployment on `network` serves, and so what its OpenAPI document describes. */
export function routesOn(network: NetworkName): RouteDescription[] {
  return ROUTES.filter((route) => route.network === undefined || route.network === network);
}
