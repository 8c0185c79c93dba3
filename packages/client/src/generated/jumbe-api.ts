// Generated from Jumbe's OpenAPI document (libs/gateway/src/openapi) by tools/openapi-client.mjs,
// which `node tools/build.mjs` runs. Do not edit: change a route's description (libs/gateway/src/<feature>/<feature>.routes.ts) and rebuild.
/* eslint-disable */
export interface paths {
  '/': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Status document */
    get: operations['get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Status document */
    get: operations['getApiV1'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Health of this process and its dependencies */
    get: operations['getApiV1Health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/openapi.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This OpenAPI document (human docs at /docs) */
    get: operations['getApiV1OpenapiJson'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Plan, billing cycle, usage counters and API hits per day of the cycle (hitsPerDay) */
    get: operations['getApiV1Usage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the sessions of the account (every one, or a page of them with limit/cursor) */
    get: operations['getApiV1Sessions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/session/start': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start a session (idempotent) and prepare the QR login */
    post: operations['postApiV1SessionStart'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/session/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Session state */
    get: operations['getApiV1SessionStatus'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/session/qr': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** QR value to scan (JSON, or PNG/SVG with format=) */
    get: operations['getApiV1SessionQr'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/session/pairing-code': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Link with a pairing code instead of a QR */
    post: operations['postApiV1SessionPairingCode'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/session/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Disconnect and clear stored credentials (idempotent) */
    post: operations['postApiV1SessionLogout'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/session': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Log out if needed and remove the session */
    delete: operations['deleteApiV1Session'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/session/proxy': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The session's own proxy, password masked; null when it connects directly (extension) */
    get: operations['getApiV1SessionProxy'];
    /** Set the session's own HTTP(S) or SOCKS5 proxy for its WhatsApp connection and media; a linked session reconnects through it (extension) */
    put: operations['putApiV1SessionProxy'];
    post?: never;
    /** Remove the session's own proxy: a linked session reconnects directly (extension) */
    delete: operations['deleteApiV1SessionProxy'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/text': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send a text message */
    post: operations['postApiV1MessagesText'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/media': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The file of a media message a session received, for 7 days after it arrived (extension) */
    get: operations['getApiV1MessagesMedia'];
    put?: never;
    /** Send media by URL */
    post: operations['postApiV1MessagesMedia'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/interactive': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send buttons, links, copy codes, calls, lists */
    post: operations['postApiV1MessagesInteractive'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/location': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Share a location (extension) */
    post: operations['postApiV1MessagesLocation'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/contact': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Share contact cards (extension; vCards built for you) */
    post: operations['postApiV1MessagesContact'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/reaction': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** React to a message with an emoji; "" removes the reaction (extension) */
    post: operations['postApiV1MessagesReaction'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Delete a message this session sent, for everyone, within 60 hours (extension) */
    post: operations['postApiV1MessagesRevoke'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/edit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Replace the text of a message this session sent, within 15 minutes (extension) */
    post: operations['postApiV1MessagesEdit'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/poll': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send a poll of 2 to 12 options; votes arrive as message.poll_vote (extension) */
    post: operations['postApiV1MessagesPoll'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Post a text, image or video status (story) to the contacts listed (extension) */
    post: operations['postApiV1MessagesStatus'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/chats/read': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Mark received messages of a chat as read: blue ticks (extension) */
    post: operations['postApiV1ChatsRead'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/chats/presence': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Show "typing…" or "recording audio…" in a chat, until `paused` (extension) */
    post: operations['postApiV1ChatsPresence'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/contacts/check': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Whether a number is on WhatsApp, and the id to send it to; rate-limited per session (extension) */
    get: operations['getApiV1ContactsCheck'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/profile': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The number's display name, about and picture URL (extension) */
    get: operations['getApiV1Profile'];
    /** Change the number's display name, about and/or picture (from a public URL, fetched like media, or base64 in `pictureData`; JPEG or PNG, at most 512 KiB) (extension) */
    put: operations['putApiV1Profile'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/contacts/profile': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A contact's picture URL and about; counted with /contacts/check against the session's 20 look-ups a minute (extension) */
    get: operations['getApiV1ContactsProfile'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/contacts/block': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Block a contact (extension) */
    post: operations['postApiV1ContactsBlock'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/contacts/unblock': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Unblock a contact (extension) */
    post: operations['postApiV1ContactsUnblock'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/session/calls': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A session's calls setting: whether it rejects calls, and its reply text (extension) */
    get: operations['getApiV1SessionCalls'];
    /** Reject incoming calls automatically, and optionally send the caller a text; the opt-in `call.received` event says whether a call was rejected (extension) */
    put: operations['putApiV1SessionCalls'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/sandbox/call': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sandbox: a contact calls the number (a `call.received` event follows) */
    post: operations['postApiV1SandboxCall'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/groups': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The groups the number is in, each with its members and settings (extension) */
    get: operations['getApiV1Groups'];
    put?: never;
    /** Create a group with a subject and first members; those whose privacy refuses adds are left out (add them later to see why, or send them the invite link) (extension) */
    post: operations['postApiV1Groups'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/groups/join': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Join a group by its invite code or `https://chat.whatsapp.com/…` link (extension) */
    post: operations['postApiV1GroupsJoin'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/groups/{groupId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A group's subject, description, members with their admin flags, and settings (extension) */
    get: operations['getApiV1GroupsGroupId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Change the subject, description (`""` removes it), announcement-only or locked; answers the group as it is after (extension) */
    patch: operations['patchApiV1GroupsGroupId'];
    trace?: never;
  };
  '/api/v1/groups/{groupId}/participants': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Add, remove, promote or demote members: one result each, as WhatsApp refuses some (`not_allowed`: their privacy refuses adds; `already_member`, `not_found`, `recently_left`, …) (extension) */
    post: operations['postApiV1GroupsGroupIdParticipants'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/groups/{groupId}/invite': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The group's invite code and link (admins only) (extension) */
    get: operations['getApiV1GroupsGroupIdInvite'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/groups/{groupId}/invite/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Revoke the invite link: the old one stops working, the new one is answered (extension) */
    post: operations['postApiV1GroupsGroupIdInviteRevoke'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/groups/{groupId}/leave': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Leave the group (extension) */
    post: operations['postApiV1GroupsGroupIdLeave'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/failures': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Failed sends, newest first */
    get: operations['getApiV1MessagesFailures'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/webhook': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Webhook configuration and the 20 newest deliveries */
    get: operations['getApiV1Webhook'];
    put?: never;
    post?: never;
    /** Remove the webhook and its secret */
    delete: operations['deleteApiV1Webhook'];
    options?: never;
    head?: never;
    /** Save the webhook: URL, events, opt-in retry (secret shown on first save and rotation only) */
    patch: operations['patchApiV1Webhook'];
    trace?: never;
  };
  '/api/v1/webhook/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send a signed webhook.test event */
    post: operations['postApiV1WebhookTest'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/webhook/deliveries/{id}/redeliver': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Send a recorded event again as a new delivery */
    post: operations['postApiV1WebhookDeliveriesIdRedeliver'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/sandbox/scan': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sandbox: a phone scans the QR or enters the pairing code */
    post: operations['postApiV1SandboxScan'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/sandbox/inbound': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sandbox: a contact sends a message */
    post: operations['postApiV1SandboxInbound'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/sandbox/outbox': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Sandbox: what the network received */
    get: operations['getApiV1SandboxOutbox'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/sandbox/disconnect': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sandbox: the network drops the session or the phone unlinks it */
    post: operations['postApiV1SandboxDisconnect'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/sandbox/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sandbox: the recipient's phone marks a sent message delivered, read or played (→ message.status) */
    post: operations['postApiV1SandboxStatus'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Live event stream: the account's webhook events as they happen, over a WebSocket (subprotocol `jumbe.v1`; a browser may offer its key as `jumbe.key.<key>`) or as Server-Sent Events (`Accept: text/event-stream`). Resumable after the last id (`Last-Event-ID` or `since`); one API hit per stream opened; at most 5 open per account on each gateway (429 beyond). See docs/event-stream.md. */
    get: operations['getApiV1Events'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the account's API keys (full scope) */
    get: operations['getApiV1Keys'];
    put?: never;
    /** Create an API key for the account (full scope; the key is shown once) */
    post: operations['postApiV1Keys'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/keys/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Revoke one of the account's API keys (full scope) */
    delete: operations['deleteApiV1KeysId'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dashboard/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sign in to the dashboard with the API key: a token (Authorization: Bearer) whose requests are not API hits, 120 a minute, for 12 hours (extension) */
    post: operations['postApiV1DashboardSessions'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dashboard/sessions/current': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Sign out: ends the dashboard session whose token the request carries (extension) */
    delete: operations['deleteApiV1DashboardSessionsCurrent'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/dashboard-sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sign in to the dashboard as the operator with the admin token: a token for the admin routes, 120 a minute, for 12 hours (extension) */
    post: operations['postApiV1AdminDashboardSessions'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/dashboard-sessions/current': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Sign out: ends the operator's dashboard session whose token the request carries (extension) */
    delete: operations['deleteApiV1AdminDashboardSessionsCurrent'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/plans': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List plans */
    get: operations['getApiV1AdminPlans'];
    put?: never;
    /** Create a plan */
    post: operations['postApiV1AdminPlans'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/plans/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Change a plan's limits (every account on it at once) */
    patch: operations['patchApiV1AdminPlansId'];
    trace?: never;
  };
  '/api/v1/admin/accounts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List accounts */
    get: operations['getApiV1AdminAccounts'];
    put?: never;
    /** Create an account */
    post: operations['postApiV1AdminAccounts'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/accounts/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get an account */
    get: operations['getApiV1AdminAccountsId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Change plan or suspend */
    patch: operations['patchApiV1AdminAccountsId'];
    trace?: never;
  };
  '/api/v1/admin/accounts/{id}/usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** An account's usage this cycle (as GET /usage shows it) */
    get: operations['getApiV1AdminAccountsIdUsage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/accounts/{id}/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** An account's sessions */
    get: operations['getApiV1AdminAccountsIdSessions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/accounts/{id}/keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List API keys */
    get: operations['getApiV1AdminAccountsIdKeys'];
    put?: never;
    /** Create an API key (shown once) */
    post: operations['postApiV1AdminAccountsIdKeys'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/admin/accounts/{id}/keys/{keyId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Revoke an API key */
    delete: operations['deleteApiV1AdminAccountsIdKeysKeyId'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export interface webhooks {
  'message.received': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The message.received event
     * @description Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @constant */
            event: 'message.received';
            timestamp: string;
            customerId: string;
            sessionId: string;
            message: {
              id: string | null;
              from: string | null;
              replyTo: string | null;
              phoneNumber: string | null;
              chat: string | null;
              participant: string | null;
              rawFrom: string | null;
              rawChat: string | null;
              pushName: string | null;
              /** @constant */
              fromMe: false;
              type: string;
              text: string;
              interaction: {
                type: string;
                id: string | null;
                label: string | null;
              } | null;
              media: {
                /** @enum {string} */
                type: 'image' | 'video' | 'audio' | 'document' | 'sticker';
                mimetype: string | null;
                fileName: string | null;
                caption: string | null;
                seconds: number | null;
              } | null;
              messageTimestamp: string;
            };
            deliveryId: string;
          };
        };
      };
      responses: {
        /** @description Received (any 2xx). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'message.status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The message.status event
     * @description Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @constant */
            event: 'message.status';
            timestamp: string;
            customerId: string;
            sessionId: string;
            message: {
              id: string;
              to: string;
              /** @enum {string} */
              status: 'server_ack' | 'delivered' | 'read' | 'played' | 'failed';
              at: string;
            };
            deliveryId: string;
          };
        };
      };
      responses: {
        /** @description Received (any 2xx). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'message.reaction': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The message.reaction event
     * @description Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @constant */
            event: 'message.reaction';
            timestamp: string;
            customerId: string;
            sessionId: string;
            reaction: {
              id: string;
              messageTimestamp: string;
              messageId: string;
              emoji: string;
              from: string | null;
              replyTo: string | null;
              phoneNumber: string | null;
              chat: string | null;
              participant: string | null;
              rawFrom: string | null;
              rawChat: string | null;
              pushName: string | null;
            };
            deliveryId: string;
          };
        };
      };
      responses: {
        /** @description Received (any 2xx). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'message.revoked': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The message.revoked event
     * @description Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @constant */
            event: 'message.revoked';
            timestamp: string;
            customerId: string;
            sessionId: string;
            revoked: {
              id: string;
              messageTimestamp: string;
              messageId: string;
              from: string | null;
              replyTo: string | null;
              phoneNumber: string | null;
              chat: string | null;
              participant: string | null;
              rawFrom: string | null;
              rawChat: string | null;
              pushName: string | null;
            };
            deliveryId: string;
          };
        };
      };
      responses: {
        /** @description Received (any 2xx). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'message.edited': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The message.edited event
     * @description Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @constant */
            event: 'message.edited';
            timestamp: string;
            customerId: string;
            sessionId: string;
            edited: {
              id: string;
              messageTimestamp: string;
              messageId: string;
              text: string;
              from: string | null;
              replyTo: string | null;
              phoneNumber: string | null;
              chat: string | null;
              participant: string | null;
              rawFrom: string | null;
              rawChat: string | null;
              pushName: string | null;
            };
            deliveryId: string;
          };
        };
      };
      responses: {
        /** @description Received (any 2xx). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'message.poll_vote': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The message.poll_vote event
     * @description Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @constant */
            event: 'message.poll_vote';
            timestamp: string;
            customerId: string;
            sessionId: string;
            vote: {
              id: string;
              pollId: string;
              chat: string;
              from: string;
              replyTo: string;
              selectedOptions: string[];
              votedAt: string;
            };
            deliveryId: string;
          };
        };
      };
      responses: {
        /** @description Received (any 2xx). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'session.status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The session.status event
     * @description Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @constant */
            event: 'session.status';
            timestamp: string;
            customerId: string;
            sessionId: string;
            session: {
              /** @enum {string} */
              state: 'qr_ready' | 'pairing_code_ready' | 'connecting' | 'connected' | 'disconnected';
              phoneNumber: string | null;
              reason: string | null;
            };
            deliveryId: string;
          };
        };
      };
      responses: {
        /** @description Received (any 2xx). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'group.participants': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The group.participants event
     * @description Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @constant */
            event: 'group.participants';
            timestamp: string;
            customerId: string;
            sessionId: string;
            group: {
              id: string;
              /** @enum {string} */
              action: 'add' | 'remove' | 'promote' | 'demote';
              participants: string[];
              author: string | null;
            };
            deliveryId: string;
          };
        };
      };
      responses: {
        /** @description Received (any 2xx). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'group.updated': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The group.updated event
     * @description Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @constant */
            event: 'group.updated';
            timestamp: string;
            customerId: string;
            sessionId: string;
            group: {
              id: string;
              subject?: string;
              description?: string | null;
              announcementOnly?: boolean;
              locked?: boolean;
              inviteRevoked?: boolean;
              author: string | null;
            };
            deliveryId: string;
          };
        };
      };
      responses: {
        /** @description Received (any 2xx). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'call.received': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The call.received event
     * @description Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @constant */
            event: 'call.received';
            timestamp: string;
            customerId: string;
            sessionId: string;
            call: {
              id: string;
              from: string;
              replyTo: string;
              video: boolean;
              group: boolean;
              groupId: string | null;
              offeredAt: string;
              rejected: boolean;
            };
            deliveryId: string;
          };
        };
      };
      responses: {
        /** @description Received (any 2xx). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  'webhook.test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The webhook.test event
     * @description Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @constant */
            event: 'webhook.test';
            timestamp: string;
            customerId: string;
            sessionId: string;
            data: {
              message: string;
            };
            deliveryId: string;
          };
        };
      };
      responses: {
        /** @description Received (any 2xx). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export interface components {
  schemas: {
    Error: {
      message: string;
      error: {
        code: string;
        details?: {
          path: string;
          problem: string;
        }[];
      };
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  get: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            service: string;
            status: string;
            baseUrl: string;
            docs: {
              [key: string]: string;
            };
          };
        };
      };
    };
  };
  getApiV1: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            service: string;
            status: string;
            baseUrl: string;
            docs: {
              [key: string]: string;
            };
          };
        };
      };
    };
  };
  getApiV1Health: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok' | 'unavailable';
            version: string;
            uptimeSeconds: number;
            checks: {
              [key: string]: string;
            };
          };
        };
      };
      /** @description A dependency is unavailable: the same health document, naming it in `checks`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ok' | 'unavailable';
            version: string;
            uptimeSeconds: number;
            checks: {
              [key: string]: string;
            };
          };
        };
      };
    };
  };
  getApiV1OpenapiJson: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            openapi: '3.1.0';
            info: {
              title: string;
              version: string;
            } & {
              [key: string]: unknown;
            };
            paths: {
              [key: string]: unknown;
            };
          } & {
            [key: string]: unknown;
          };
        };
      };
    };
  };
  getApiV1Usage: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              plan: string;
              /** @description ISO 8601 UTC time with milliseconds. */
              periodStart: string;
              /** @description ISO 8601 UTC time with milliseconds. */
              periodEnd: string;
              apiHits: number;
              apiHitLimit: number;
              messagesSent: number;
              sendFailures: number;
              sessions: number;
              sessionLimit: number;
              hitsPerDay: {
                date: string;
                apiHits: number;
              }[];
            };
          };
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1Sessions: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              sessionId: string;
              phoneNumber: string | null;
              connected: boolean;
              /** @enum {string} */
              state:
                'starting' | 'qr_ready' | 'pairing_code_ready' | 'connecting' | 'connected' | 'disconnected';
              updatedAt: string | null;
              /** @description Why the session is disconnected (null otherwise). Credentials are deleted only for logged_out and number_in_use; after any other reason POST /session/start resumes the link without a new scan. logged_out: the phone unlinked the device (WhatsApp 401) or POST /session/logout; qr_timeout: the QR or pairing code was not used in time; number_in_use: the number is connected to another session of this deployment; network_error: WhatsApp could not be reached before a login was offered; connection_replaced: the same device connected elsewhere (440); forbidden: WhatsApp refused the number (403); multidevice_mismatch: WhatsApp asked the device to re-sync (411); client_outdated: WhatsApp kept refusing the client version (405), after refetching it; bad_session: WhatsApp kept reporting a bad session (500); network_refused: WhatsApp kept refusing the connection (402 or 406). */
              reason: string | null;
            }[];
            /** @description Only when `limit` or `cursor` was given: pass it as `cursor` for the next page; null on the last page. */
            nextCursor?: string | null;
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1SessionStart: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              phoneNumber: string | null;
              connected: boolean;
              /** @enum {string} */
              state:
                'starting' | 'qr_ready' | 'pairing_code_ready' | 'connecting' | 'connected' | 'disconnected';
              updatedAt: string | null;
              /** @description Why the session is disconnected (null otherwise). Credentials are deleted only for logged_out and number_in_use; after any other reason POST /session/start resumes the link without a new scan. logged_out: the phone unlinked the device (WhatsApp 401) or POST /session/logout; qr_timeout: the QR or pairing code was not used in time; number_in_use: the number is connected to another session of this deployment; network_error: WhatsApp could not be reached before a login was offered; connection_replaced: the same device connected elsewhere (440); forbidden: WhatsApp refused the number (403); multidevice_mismatch: WhatsApp asked the device to re-sync (411); client_outdated: WhatsApp kept refusing the client version (405), after refetching it; bad_session: WhatsApp kept reporting a bad session (500); network_refused: WhatsApp kept refusing the connection (402 or 406). */
              reason: string | null;
            };
          };
        };
      };
      /** @description `invalid_session_id`, `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden`, `instance_limit_reached` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1SessionStatus: {
    parameters: {
      query?: {
        sessionId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              phoneNumber: string | null;
              connected: boolean;
              /** @enum {string} */
              state:
                'starting' | 'qr_ready' | 'pairing_code_ready' | 'connecting' | 'connected' | 'disconnected';
              updatedAt: string | null;
              /** @description Why the session is disconnected (null otherwise). Credentials are deleted only for logged_out and number_in_use; after any other reason POST /session/start resumes the link without a new scan. logged_out: the phone unlinked the device (WhatsApp 401) or POST /session/logout; qr_timeout: the QR or pairing code was not used in time; number_in_use: the number is connected to another session of this deployment; network_error: WhatsApp could not be reached before a login was offered; connection_replaced: the same device connected elsewhere (440); forbidden: WhatsApp refused the number (403); multidevice_mismatch: WhatsApp asked the device to re-sync (411); client_outdated: WhatsApp kept refusing the client version (405), after refetching it; bad_session: WhatsApp kept reporting a bad session (500); network_refused: WhatsApp kept refusing the connection (402 or 406). */
              reason: string | null;
            };
          };
        };
      };
      /** @description `invalid_session_id`, `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1SessionQr: {
    parameters: {
      query?: {
        sessionId?: string;
        format?: 'json' | 'png' | 'svg';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success With `format=svg`: the QR as an SVG document. With `format=png`: the QR as a PNG image. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              /** @enum {string} */
              state:
                'starting' | 'qr_ready' | 'pairing_code_ready' | 'connecting' | 'connected' | 'disconnected';
              qr: string;
            };
          };
          'image/svg+xml': string;
          'image/png': string;
        };
      };
      /** @description `invalid_session_id`, `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1SessionPairingCode: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description International number, digits only. */
          phoneNumber: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              /** @constant */
              state: 'pairing_code_ready';
              pairingCode: string;
            };
          };
        };
      };
      /** @description `invalid_phone`, `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden`, `instance_limit_reached` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `number_in_use` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1SessionLogout: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              phoneNumber: string | null;
              connected: boolean;
              /** @enum {string} */
              state:
                'starting' | 'qr_ready' | 'pairing_code_ready' | 'connecting' | 'connected' | 'disconnected';
              updatedAt: string | null;
              /** @description Why the session is disconnected (null otherwise). Credentials are deleted only for logged_out and number_in_use; after any other reason POST /session/start resumes the link without a new scan. logged_out: the phone unlinked the device (WhatsApp 401) or POST /session/logout; qr_timeout: the QR or pairing code was not used in time; number_in_use: the number is connected to another session of this deployment; network_error: WhatsApp could not be reached before a login was offered; connection_replaced: the same device connected elsewhere (440); forbidden: WhatsApp refused the number (403); multidevice_mismatch: WhatsApp asked the device to re-sync (411); client_outdated: WhatsApp kept refusing the client version (405), after refetching it; bad_session: WhatsApp kept reporting a bad session (500); network_refused: WhatsApp kept refusing the connection (402 or 406). */
              reason: string | null;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteApiV1Session: {
    parameters: {
      query?: {
        sessionId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              phoneNumber: string | null;
              connected: boolean;
              /** @enum {string} */
              state:
                'starting' | 'qr_ready' | 'pairing_code_ready' | 'connecting' | 'connected' | 'disconnected';
              updatedAt: string | null;
              /** @description Why the session is disconnected (null otherwise). Credentials are deleted only for logged_out and number_in_use; after any other reason POST /session/start resumes the link without a new scan. logged_out: the phone unlinked the device (WhatsApp 401) or POST /session/logout; qr_timeout: the QR or pairing code was not used in time; number_in_use: the number is connected to another session of this deployment; network_error: WhatsApp could not be reached before a login was offered; connection_replaced: the same device connected elsewhere (440); forbidden: WhatsApp refused the number (403); multidevice_mismatch: WhatsApp asked the device to re-sync (411); client_outdated: WhatsApp kept refusing the client version (405), after refetching it; bad_session: WhatsApp kept reporting a bad session (500); network_refused: WhatsApp kept refusing the connection (402 or 406). */
              reason: string | null;
            };
          };
        };
      };
      /** @description `invalid_session_id`, `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1SessionProxy: {
    parameters: {
      query?: {
        sessionId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              /** @description The proxy with its password masked (`socks5://user:****@proxy.example.com:1080`); null: none, the session connects directly. */
              proxy: string | null;
              /** @description When the proxy was set; null when there is none. */
              updatedAt: string | null;
            };
          };
        };
      };
      /** @description `invalid_session_id`, `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putApiV1SessionProxy: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description `http://`, `https://`, `socks5://` or `socks5h://` (the proxy resolves names), with optional `user:password@` and port; nothing after the port. Must be on a public address unless the operator allows private networks. */
          url: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              /** @description The proxy with its password masked (`socks5://user:****@proxy.example.com:1080`); null: none, the session connects directly. */
              proxy: string | null;
              /** @description When the proxy was set; null when there is none. */
              updatedAt: string | null;
            };
          };
        };
      };
      /** @description `invalid_session_id`, `invalid_proxy_url`, `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteApiV1SessionProxy: {
    parameters: {
      query?: {
        sessionId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              /** @description The proxy with its password masked (`socks5://user:****@proxy.example.com:1080`); null: none, the session connects directly. */
              proxy: string | null;
              /** @description When the proxy was set; null when there is none. */
              updatedAt: string | null;
            };
          };
        };
      };
      /** @description `invalid_session_id`, `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1MessagesText: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          to: string;
          text: string;
          /** @description Reply to (quote) this message of the same chat: the `id` a send returned (`data.key.id`, kept 24 hours) or a `message.received` event carried (`message.id`, kept 7 days). 404 `message_not_found` when unknown or of another chat. */
          quotedMessageId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              key: {
                remoteJid: string;
                /** @constant */
                fromMe: true;
                id: string;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `message_not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1MessagesMedia: {
    parameters: {
      query: {
        sessionId?: string;
        messageId: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The file, streamed: `Content-Type` as the sender stated it, `Content-Length`, and `Content-Disposition: attachment` with the sender's file name (documents) or `<messageId>.<extension>`. Files over `JUMBE_MEDIA_MAX_BYTES` (64 MiB) are 422 `media_too_large`; 503 `media_busy` (with `Retry-After`) when the worker is downloading `JUMBE_MEDIA_DOWNLOADS` files already. */
      200: {
        headers: {
          /** @description The file's MIME type. */
          'Content-Type'?: string;
          /** @description The file's size in bytes. */
          'Content-Length'?: number;
          /** @description `attachment; filename="…"; filename*=UTF-8''…` */
          'Content-Disposition'?: string;
          [name: string]: unknown;
        };
        content: {
          '*/*': string;
        };
      };
      /** @description `validation_error`, `invalid_session_id` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `media_not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `media_expired` */
      410: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `media_too_large` */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `media_download_failed` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `media_busy`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1MessagesMedia: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          to: string;
          /** @description Absolute http or https URL. */
          url: string;
          /**
           * @default image
           * @enum {string}
           */
          type?: 'image' | 'video' | 'audio' | 'document' | 'sticker';
          caption?: string;
          mimetype?: string;
          fileName?: string;
          ptt?: boolean;
          /** @description Reply to (quote) this message of the same chat: the `id` a send returned (`data.key.id`, kept 24 hours) or a `message.received` event carried (`message.id`, kept 7 days). 404 `message_not_found` when unknown or of another chat. */
          quotedMessageId?: string;
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
        'multipart/form-data': {
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          to: string;
          /**
           * @default image
           * @enum {string}
           */
          type?: 'image' | 'video' | 'audio' | 'document' | 'sticker';
          caption?: string;
          mimetype?: string;
          fileName?: string;
          /** @enum {string} */
          ptt?: 'true' | 'false';
          /** @description Reply to (quote) this message of the same chat: the `id` a send returned (`data.key.id`, kept 24 hours) or a `message.received` event carried (`message.id`, kept 7 days). 404 `message_not_found` when unknown or of another chat. */
          quotedMessageId?: string;
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** Format: binary */
          file: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              key: {
                remoteJid: string;
                /** @constant */
                fromMe: true;
                id: string;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_media_url`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `message_not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error`, `media_fetch_failed` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1MessagesInteractive: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          to: string;
          text: string;
          title?: string;
          footer?: string;
          actions: (
            | {
                /** @constant */
                type: 'reply';
                id: string;
                label: string;
              }
            | {
                /** @constant */
                type: 'url';
                label: string;
                /** @description Absolute http or https URL. */
                url: string;
                /** @description Absolute http or https URL. */
                merchantUrl?: string;
              }
            | {
                /** @constant */
                type: 'copy';
                label: string;
                value: string;
              }
            | {
                /** @constant */
                type: 'call';
                label: string;
                /** @description International number, digits only. */
                phoneNumber: string;
              }
            | {
                /** @constant */
                type: 'list';
                label: string;
                sections: {
                  title: string;
                  rows: {
                    id: string;
                    title: string;
                    description?: string;
                  }[];
                }[];
              }
            | {
                /** @constant */
                type: 'catalog';
                /** @description International number, digits only. */
                businessPhoneNumber: string;
                label?: string;
              }
            | {
                /** @constant */
                type: 'location_request';
                label: string;
              }
          )[];
          /** @description Reply to (quote) this message of the same chat: the `id` a send returned (`data.key.id`, kept 24 hours) or a `message.received` event carried (`message.id`, kept 7 days). 404 `message_not_found` when unknown or of another chat. */
          quotedMessageId?: string;
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              key: {
                remoteJid: string;
                /** @constant */
                fromMe: true;
                id: string;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `message_not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1MessagesLocation: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          to: string;
          latitude: number;
          longitude: number;
          name?: string;
          address?: string;
          /** @description Reply to (quote) this message of the same chat: the `id` a send returned (`data.key.id`, kept 24 hours) or a `message.received` event carried (`message.id`, kept 7 days). 404 `message_not_found` when unknown or of another chat. */
          quotedMessageId?: string;
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              key: {
                remoteJid: string;
                /** @constant */
                fromMe: true;
                id: string;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `message_not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1MessagesContact: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          to: string;
          contacts: {
            name: string;
            /** @description International number, digits only. */
            phoneNumber: string;
          }[];
          /** @description Reply to (quote) this message of the same chat: the `id` a send returned (`data.key.id`, kept 24 hours) or a `message.received` event carried (`message.id`, kept 7 days). 404 `message_not_found` when unknown or of another chat. */
          quotedMessageId?: string;
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              key: {
                remoteJid: string;
                /** @constant */
                fromMe: true;
                id: string;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `message_not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1MessagesReaction: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          to: string;
          /** @description The `id` a send returned (`data.key.id`) or a webhook event carried (`message.id`). */
          messageId: string;
          emoji: string;
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              key: {
                remoteJid: string;
                /** @constant */
                fromMe: true;
                id: string;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1MessagesRevoke: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          to: string;
          /** @description The `id` a send returned (`data.key.id`) or a webhook event carried (`message.id`). */
          messageId: string;
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              key: {
                remoteJid: string;
                /** @constant */
                fromMe: true;
                id: string;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `message_not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict`, `message_not_editable` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1MessagesEdit: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          to: string;
          /** @description The `id` a send returned (`data.key.id`) or a webhook event carried (`message.id`). */
          messageId: string;
          text: string;
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              key: {
                remoteJid: string;
                /** @constant */
                fromMe: true;
                id: string;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `message_not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict`, `message_not_editable` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1MessagesPoll: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          to: string;
          question: string;
          /** @description 2 to 12 distinct options; a vote names the options chosen by this text. */
          options: string[];
          /** @description Let a voter choose several options (default: a single one). */
          multipleChoice?: boolean;
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              key: {
                remoteJid: string;
                /** @constant */
                fromMe: true;
                id: string;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1MessagesStatus: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description `text` (default), `image` or `video`.
           * @default text
           * @enum {string}
           */
          type?: 'text' | 'image' | 'video';
          text?: string;
          /** @description Absolute http or https URL. */
          url?: string;
          caption?: string;
          /** @description A text status: its background colour, `#RRGGBB`. */
          backgroundColor?: string;
          font?: number;
          /** @description The numbers (digits) that see the status: only contacts who saved this number do. */
          contacts: string[];
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              key: {
                remoteJid: string;
                /** @constant */
                fromMe: true;
                id: string;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_media_url`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error`, `media_fetch_failed` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1ChatsRead: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          chat: string;
          messageIds: string[];
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              chat: string;
              messageIds: string[];
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1ChatsPresence: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          chat: string;
          /** @enum {string} */
          state: 'typing' | 'recording' | 'paused';
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              chat: string;
              /** @enum {string} */
              state: 'typing' | 'recording' | 'paused';
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1ContactsCheck: {
    parameters: {
      query: {
        sessionId?: string;
        phoneNumber: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              phoneNumber: string;
              onWhatsApp: boolean;
              recipientId: string | null;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_phone`, `invalid_session_id` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `idempotency_conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable`, `session_restoring` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1Profile: {
    parameters: {
      query?: {
        sessionId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              name: string | null;
              about: string | null;
              pictureUrl: string | null;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putApiV1Profile: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description The display name contacts see (push name). */
          name?: string;
          /** @description The about text ("Hey there! I am using WhatsApp."). */
          about?: string;
          /** @description Absolute http or https URL. */
          pictureUrl?: string;
          /** @description The picture itself, base64: JPEG or PNG, at most 524288 bytes. */
          pictureData?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              updated: ('name' | 'about' | 'picture')[];
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_media_url`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error`, `media_fetch_failed` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1ContactsProfile: {
    parameters: {
      query: {
        sessionId?: string;
        contact: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              contact: string;
              pictureUrl: string | null;
              about: string | null;
              aboutSetAt: string | null;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_phone` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1ContactsBlock: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          contact: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              contact: string;
              blocked: boolean;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_phone`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1ContactsUnblock: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description International number, digits only (e.g. `254712345678`), or a webhook `message.replyTo` value. */
          contact: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              contact: string;
              blocked: boolean;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_phone`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1SessionCalls: {
    parameters: {
      query?: {
        sessionId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              rejectCalls: boolean;
              reply: string | null;
            };
          };
        };
      };
      /** @description `invalid_session_id`, `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putApiV1SessionCalls: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description Reject every incoming call as it rings. */
          rejectCalls: boolean;
          /** @description A text message sent to the caller after a call was rejected. */
          reply?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              rejectCalls: boolean;
              reply: string | null;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1SandboxCall: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description International number, digits only. */
          from: string;
          /** @default false */
          video?: boolean;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              callId: string;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_phone`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1Groups: {
    parameters: {
      query?: {
        sessionId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              subject: string;
              description: string | null;
              owner: string | null;
              createdAt: string | null;
              participants: {
                id: string;
                phoneNumber: string | null;
                isAdmin: boolean;
                isSuperAdmin: boolean;
              }[];
              settings: {
                announcementOnly: boolean;
                locked: boolean;
              };
            }[];
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1Groups: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          subject: string;
          participants: string[];
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              subject: string;
              description: string | null;
              owner: string | null;
              createdAt: string | null;
              participants: {
                id: string;
                phoneNumber: string | null;
                isAdmin: boolean;
                isSuperAdmin: boolean;
              }[];
              settings: {
                announcementOnly: boolean;
                locked: boolean;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_phone`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1GroupsJoin: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          code: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              groupId: string;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected`, `conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1GroupsGroupId: {
    parameters: {
      query?: {
        sessionId?: string;
      };
      header?: never;
      path: {
        groupId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              subject: string;
              description: string | null;
              owner: string | null;
              createdAt: string | null;
              participants: {
                id: string;
                phoneNumber: string | null;
                isAdmin: boolean;
                isSuperAdmin: boolean;
              }[];
              settings: {
                announcementOnly: boolean;
                locked: boolean;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  patchApiV1GroupsGroupId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        groupId: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          subject?: string;
          description?: string;
          announcementOnly?: boolean;
          locked?: boolean;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              subject: string;
              description: string | null;
              owner: string | null;
              createdAt: string | null;
              participants: {
                id: string;
                phoneNumber: string | null;
                isAdmin: boolean;
                isSuperAdmin: boolean;
              }[];
              settings: {
                announcementOnly: boolean;
                locked: boolean;
              };
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1GroupsGroupIdParticipants: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        groupId: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @enum {string} */
          action: 'add' | 'remove' | 'promote' | 'demote';
          participants: string[];
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              groupId: string;
              /** @enum {string} */
              action: 'add' | 'remove' | 'promote' | 'demote';
              results: {
                participant: string;
                ok: boolean;
                status: number;
                reason:
                  | (
                      | 'not_allowed'
                      | 'not_found'
                      | 'already_member'
                      | 'recently_left'
                      | 'not_authorized'
                      | 'refused'
                    )
                  | null;
              }[];
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_phone`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1GroupsGroupIdInvite: {
    parameters: {
      query?: {
        sessionId?: string;
      };
      header?: never;
      path: {
        groupId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              groupId: string;
              code: string;
              link: string;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1GroupsGroupIdInviteRevoke: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        groupId: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              groupId: string;
              code: string;
              link: string;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1GroupsGroupIdLeave: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        groupId: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              groupId: string;
              /** @constant */
              left: true;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_session_id`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `network_error` */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `timeout` */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1MessagesFailures: {
    parameters: {
      query?: {
        sessionId?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              sessionId: string;
              to: string | null;
              type: string;
              code: string;
              message: string;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
            }[];
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1Webhook: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              /** @description The destination, its query and fragment masked (`?token=****`). */
              url: string | null;
              enabled: boolean;
              hasSecret: boolean;
              events: string[];
              /** @description Automatic retries of a failed event; `null`: none (the spec). */
              retry: {
                attempts: number;
              } | null;
              deliveries: {
                id: string;
                event: string;
                sessionId: string;
                /** @description The URL posted to, its query and fragment masked (`?token=****`). */
                url: string;
                /** @enum {string} */
                status: 'success' | 'failed';
                statusCode: number | null;
                error: string | null;
                response: string | null;
                durationMs: number;
                /** @description ISO 8601 UTC time with milliseconds. */
                createdAt: string;
                /** @description ISO 8601 UTC time with milliseconds. */
                attemptedAt: string;
                /** @description 1 for the first POST of an event; its automatic retries (opt-in `retry`) are 2, 3, … under the same `id`. */
                attempt: number;
              }[];
            };
          };
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteApiV1Webhook: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              /** @description The destination, its query and fragment masked (`?token=****`). */
              url: string | null;
              enabled: boolean;
              hasSecret: boolean;
              events: string[];
              /** @description Automatic retries of a failed event; `null`: none (the spec). */
              retry: {
                attempts: number;
              } | null;
            };
          };
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  patchApiV1Webhook: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /** @description Public http or https URL, without a username or password. A query or fragment (e.g. `?token=…`) is stored encrypted and shown masked; sending the masked form back keeps the stored URL. */
          url?: string;
          enabled?: boolean;
          rotateSecret?: boolean;
          /** @description Event types the webhook receives (default `["message.received"]`; `webhook.test` is always sent). Known: message.received, message.status, message.reaction, message.revoked, message.edited, message.poll_vote, session.status, group.participants, group.updated, call.received, webhook.test. */
          events?: (
            | 'message.received'
            | 'message.status'
            | 'message.reaction'
            | 'message.revoked'
            | 'message.edited'
            | 'message.poll_vote'
            | 'session.status'
            | 'group.participants'
            | 'group.updated'
            | 'call.received'
            | 'webhook.test'
          )[];
          /** @description Automatic redelivery of a failed event, every attempt under the same delivery id; `null` (the default) for none. A session's later events wait behind one being retried. */
          retry?: {
            /** @description Further attempts after the first one fails, 1–10; each waits 30 s·3^(k−1) (at most 6 h), all within 24 h of the event. */
            attempts: number;
          } | null;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              /** @description The destination, its query and fragment masked (`?token=****`). */
              url: string | null;
              enabled: boolean;
              hasSecret: boolean;
              events: string[];
              /** @description Automatic retries of a failed event; `null`: none (the spec). */
              retry: {
                attempts: number;
              } | null;
            };
            secret?: string;
          };
        };
      };
      /** @description `invalid_webhook_url`, `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1WebhookTest: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              delivery: {
                id: string;
                event: string;
                sessionId: string;
                /** @description The URL posted to, its query and fragment masked (`?token=****`). */
                url: string;
                /** @enum {string} */
                status: 'success' | 'failed';
                statusCode: number | null;
                error: string | null;
                response: string | null;
                durationMs: number;
                /** @description ISO 8601 UTC time with milliseconds. */
                createdAt: string;
                /** @description ISO 8601 UTC time with milliseconds. */
                attemptedAt: string;
                /** @description 1 for the first POST of an event; its automatic retries (opt-in `retry`) are 2, 3, … under the same `id`. */
                attempt: number;
              };
            };
          };
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `webhook_not_enabled` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1WebhookDeliveriesIdRedeliver: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              delivery: {
                id: string;
                event: string;
                sessionId: string;
                /** @description The URL posted to, its query and fragment masked (`?token=****`). */
                url: string;
                /** @enum {string} */
                status: 'success' | 'failed';
                statusCode: number | null;
                error: string | null;
                response: string | null;
                durationMs: number;
                /** @description ISO 8601 UTC time with milliseconds. */
                createdAt: string;
                /** @description ISO 8601 UTC time with milliseconds. */
                attemptedAt: string;
                /** @description 1 for the first POST of an event; its automatic retries (opt-in `retry`) are 2, 3, … under the same `id`. */
                attempt: number;
              };
            };
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `webhook_not_enabled` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1SandboxScan: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description International number, digits only. */
          phoneNumber: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              phoneNumber: string | null;
              connected: boolean;
              /** @enum {string} */
              state:
                'starting' | 'qr_ready' | 'pairing_code_ready' | 'connecting' | 'connected' | 'disconnected';
              updatedAt: string | null;
              /** @description Why the session is disconnected (null otherwise). Credentials are deleted only for logged_out and number_in_use; after any other reason POST /session/start resumes the link without a new scan. logged_out: the phone unlinked the device (WhatsApp 401) or POST /session/logout; qr_timeout: the QR or pairing code was not used in time; number_in_use: the number is connected to another session of this deployment; network_error: WhatsApp could not be reached before a login was offered; connection_replaced: the same device connected elsewhere (440); forbidden: WhatsApp refused the number (403); multidevice_mismatch: WhatsApp asked the device to re-sync (411); client_outdated: WhatsApp kept refusing the client version (405), after refetching it; bad_session: WhatsApp kept reporting a bad session (500); network_refused: WhatsApp kept refusing the connection (402 or 406). */
              reason: string | null;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `number_in_use`, `session_not_ready` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1SandboxInbound: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description International number, digits only. */
          from: string;
          pushName?: string;
          text?: string;
          group?: {
            id: string;
            /** @description International number, digits only. */
            participant?: string;
          };
          lid?: boolean;
          media?: {
            /** @enum {string} */
            type: 'image' | 'video' | 'audio' | 'document' | 'sticker';
            mimetype?: string | null;
            fileName?: string | null;
            caption?: string | null;
            seconds?: number | null;
            /**
             * Format: base64
             * @description The file itself, base64 (within the body limit): `GET /messages/media` serves it for 7 days. Without it the message has no file (404 `media_not_found`).
             */
            data?: string;
          };
          interaction?: {
            type: string;
            id?: string | null;
            label?: string | null;
          };
          /** @description The contact reacts to a message (`emoji: ""` removes the reaction). */
          reaction?: {
            messageId: string;
            emoji: string;
          };
          /** @description The contact deletes one of their messages for everyone. */
          revoke?: {
            messageId: string;
          };
          /** @description The contact changes one of their messages' text. */
          edit?: {
            messageId: string;
            text: string;
          };
          /** @description The contact votes on a poll the session sent them (→ message.poll_vote): their whole choice, by option text; `[]` takes the vote back. Text, media and the other changes are then ignored. */
          pollVote?: {
            /** @description The `key.id` the poll's send returned. */
            pollId: string;
            options: string[];
          };
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
            };
          };
        };
      };
      /** @description `invalid_session_id`, `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1SandboxOutbox: {
    parameters: {
      query?: {
        sessionId?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              to: string;
              /** @enum {string} */
              type:
                | 'text'
                | 'media'
                | 'interactive'
                | 'location'
                | 'contact'
                | 'reaction'
                | 'revoke'
                | 'edit'
                | 'poll'
                | 'status'
                | 'read'
                | 'presence';
              content: {
                [key: string]: unknown;
              };
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
            }[];
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1SandboxDisconnect: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @enum {string} */
          reason: 'network' | 'logged_out';
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              phoneNumber: string | null;
              connected: boolean;
              /** @enum {string} */
              state:
                'starting' | 'qr_ready' | 'pairing_code_ready' | 'connecting' | 'connected' | 'disconnected';
              updatedAt: string | null;
              /** @description Why the session is disconnected (null otherwise). Credentials are deleted only for logged_out and number_in_use; after any other reason POST /session/start resumes the link without a new scan. logged_out: the phone unlinked the device (WhatsApp 401) or POST /session/logout; qr_timeout: the QR or pairing code was not used in time; number_in_use: the number is connected to another session of this deployment; network_error: WhatsApp could not be reached before a login was offered; connection_replaced: the same device connected elsewhere (440); forbidden: WhatsApp refused the number (403); multidevice_mismatch: WhatsApp asked the device to re-sync (411); client_outdated: WhatsApp kept refusing the client version (405), after refetching it; bad_session: WhatsApp kept reporting a bad session (500); network_refused: WhatsApp kept refusing the connection (402 or 406). */
              reason: string | null;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1SandboxStatus: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /**
           * @description Session name; letters, digits, `_` and `-`, 1–64 characters. Default `default`.
           * @default default
           */
          sessionId?: string;
          /** @description The `key.id` a send returned. */
          messageId: string;
          /** @enum {string} */
          status: 'server_ack' | 'delivered' | 'read' | 'played' | 'failed';
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              messageId: string;
              to: string;
              status: string;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `session_not_connected` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1Events: {
    parameters: {
      query?: {
        types?: string;
        since?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success Server-Sent Events: `id: <seq>`, `event: <type>`, `data: <the webhook event as JSON>` per event, a `stream.start` frame first, a `: heartbeat` comment every 15 s. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The event id (the live stream sequence) to resume after; absent on `stream.start` and `stream.end`. */
            id?: number;
            /** @description The event type (`message.received`, …), or `stream.start` (first: how the stream resumed, `live`, `complete` or `gap`) or `stream.end` (last: why the server ended it). */
            event: string;
            /** @description The event exactly as the account's webhook receives it (with `deliveryId`), or the control frame's fields. */
            data: {
              [key: string]: unknown;
            };
          };
          'text/event-stream': string;
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1Keys: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string | null;
              /** @enum {string} */
              scope: 'full' | 'read';
              prefix: string;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
              revokedAt: string | null;
              /** @description Last authenticated request, to about a minute. */
              lastUsedAt: string | null;
            }[];
          };
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1Keys: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          name?: string;
          /**
           * @description `full` (every route) or `read` (GET routes only).
           * @default full
           * @enum {string}
           */
          scope?: 'full' | 'read';
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string | null;
              /** @enum {string} */
              scope: 'full' | 'read';
              prefix: string;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
              revokedAt: string | null;
              /** @description Last authenticated request, to about a minute. */
              lastUsedAt: string | null;
            };
            key: string;
          };
        };
      };
      /** @description `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteApiV1KeysId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string | null;
              /** @enum {string} */
              scope: 'full' | 'read';
              prefix: string;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
              revokedAt: string | null;
              /** @description Last authenticated request, to about a minute. */
              lastUsedAt: string | null;
            };
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1DashboardSessions: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              token: string;
              expiresAt: string;
              /** @enum {string} */
              scope: 'full' | 'read';
            };
          };
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteApiV1DashboardSessionsCurrent: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              /** @constant */
              signedOut: true;
            };
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `monthly_limit_reached` */
      402: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_suspended`, `forbidden` */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unavailable` */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1AdminDashboardSessions: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              token: string;
              expiresAt: string;
              /** @constant */
              scope: 'admin';
            };
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteApiV1AdminDashboardSessionsCurrent: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              /** @constant */
              signedOut: true;
            };
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1AdminPlans: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string;
              monthlyApiHits: number;
              maxSessions: number;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
            }[];
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1AdminPlans: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /** @description Unique plan name, e.g. `starter`. */
          name: string;
          /** @description API hits allowed per calendar month. */
          monthlyApiHits: number;
          /** @description Active sessions allowed at once. */
          maxSessions: number;
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string;
              monthlyApiHits: number;
              maxSessions: number;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `conflict` */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  patchApiV1AdminPlansId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          /** @description API hits allowed per calendar month. */
          monthlyApiHits?: number;
          /** @description Active sessions allowed at once. */
          maxSessions?: number;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string;
              monthlyApiHits: number;
              maxSessions: number;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1AdminAccounts: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string;
              plan: string;
              suspended: boolean;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
            }[];
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1AdminAccounts: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          name: string;
          /** @description Plan name. */
          plan: string;
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string;
              plan: string;
              suspended: boolean;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1AdminAccountsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string;
              plan: string;
              suspended: boolean;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
            };
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  patchApiV1AdminAccountsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          plan?: string;
          suspended?: boolean;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string;
              plan: string;
              suspended: boolean;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
            };
          };
        };
      };
      /** @description `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1AdminAccountsIdUsage: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              plan: string;
              /** @description ISO 8601 UTC time with milliseconds. */
              periodStart: string;
              /** @description ISO 8601 UTC time with milliseconds. */
              periodEnd: string;
              apiHits: number;
              apiHitLimit: number;
              messagesSent: number;
              sendFailures: number;
              sessions: number;
              sessionLimit: number;
              hitsPerDay: {
                date: string;
                apiHits: number;
              }[];
            };
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1AdminAccountsIdSessions: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              sessionId: string;
              phoneNumber: string | null;
              connected: boolean;
              /** @enum {string} */
              state:
                'starting' | 'qr_ready' | 'pairing_code_ready' | 'connecting' | 'connected' | 'disconnected';
              updatedAt: string | null;
              /** @description Why the session is disconnected (null otherwise). Credentials are deleted only for logged_out and number_in_use; after any other reason POST /session/start resumes the link without a new scan. logged_out: the phone unlinked the device (WhatsApp 401) or POST /session/logout; qr_timeout: the QR or pairing code was not used in time; number_in_use: the number is connected to another session of this deployment; network_error: WhatsApp could not be reached before a login was offered; connection_replaced: the same device connected elsewhere (440); forbidden: WhatsApp refused the number (403); multidevice_mismatch: WhatsApp asked the device to re-sync (411); client_outdated: WhatsApp kept refusing the client version (405), after refetching it; bad_session: WhatsApp kept reporting a bad session (500); network_refused: WhatsApp kept refusing the connection (402 or 406). */
              reason: string | null;
            }[];
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getApiV1AdminAccountsIdKeys: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string | null;
              /** @enum {string} */
              scope: 'full' | 'read';
              prefix: string;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
              revokedAt: string | null;
              /** @description Last authenticated request, to about a minute. */
              lastUsedAt: string | null;
            }[];
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  postApiV1AdminAccountsIdKeys: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': {
          name?: string;
          /**
           * @description `full` (every route) or `read` (GET routes only).
           * @default full
           * @enum {string}
           */
          scope?: 'full' | 'read';
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string | null;
              /** @enum {string} */
              scope: 'full' | 'read';
              prefix: string;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
              revokedAt: string | null;
              /** @description Last authenticated request, to about a minute. */
              lastUsedAt: string | null;
            };
            key: string;
          };
        };
      };
      /** @description `validation_error`, `invalid_json` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `payload_too_large` */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unsupported_media_type` */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteApiV1AdminAccountsIdKeysKeyId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        keyId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            message?: string;
            data: {
              id: string;
              name: string | null;
              /** @enum {string} */
              scope: 'full' | 'read';
              prefix: string;
              /** @description ISO 8601 UTC time with milliseconds. */
              createdAt: string;
              revokedAt: string | null;
              /** @description Last authenticated request, to about a minute. */
              lastUsedAt: string | null;
            };
          };
        };
      };
      /** @description `validation_error` */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unauthorized` */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `not_found` */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
}
