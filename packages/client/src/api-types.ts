// Names for the shapes of Jumbe's API, taken from the generated OpenAPI types (never written out
// by hand), so a change to the document changes them too.
import type { components, paths } from './generated/jumbe-api';

type Method = 'get' | 'post' | 'patch' | 'delete';

/** The JSON body of the success response (200 or 201) of `method` on `path`. */
export type ResponseBody<P extends keyof paths, M extends Method> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : paths[P][M] extends { responses: { 201: { content: { 'application/json': infer Body } } } }
    ? Body
    : never;

/** The `data` of a success response's `{ data }` envelope. */
export type ResponseData<P extends keyof paths, M extends Method> =
  ResponseBody<P, M> extends { data: infer Data } ? Data : never;

/** The JSON request body of `method` on `path`. */
export type RequestBody<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** The query parameters of `method` on `path`. */
export type QueryParameters<P extends keyof paths, M extends Method> = paths[P][M] extends {
  parameters: { query?: infer Query };
}
  ? NonNullable<Query>
  : never;

/** The error envelope every error status carries: `{ message, error: { code, details? } }`. */
export type ErrorBody = components['schemas']['Error'];
/** A machine-readable error code (`validation_error`, `session_not_connected`, …). */
export type ErrorCode = ErrorBody['error']['code'];

export type StatusDocument = ResponseBody<'/api/v1', 'get'>;
export type Health = ResponseBody<'/api/v1/health', 'get'>;
export type Usage = ResponseData<'/api/v1/usage', 'get'>;

export type Session = ResponseData<'/api/v1/session/status', 'get'>;
export type SessionState = Session['state'];
/** `GET /sessions`: `data` and the next page's cursor. */
export type SessionList = ResponseBody<'/api/v1/sessions', 'get'>;
export type Qr = ResponseData<'/api/v1/session/qr', 'get'>;
/** A session's own proxy (password masked), or null when it connects directly. */
export type SessionProxy = ResponseData<'/api/v1/session/proxy', 'get'>;
/** One message of the live event stream (`GET /api/v1/events`, WebSocket or SSE). */
export type EventStreamFrame = ResponseBody<'/api/v1/events', 'get'>;
export type PairingCode = ResponseData<'/api/v1/session/pairing-code', 'post'>;

/** What every send answers: the message id and its status. */
export type SentMessage = ResponseData<'/api/v1/messages/text', 'post'>;
export type SendFailure = ResponseData<'/api/v1/messages/failures', 'get'>[number];
export type SendTextRequest = RequestBody<'/api/v1/messages/text', 'post'>;
export type SendMediaRequest = RequestBody<'/api/v1/messages/media', 'post'>;
export type SendInteractiveRequest = RequestBody<'/api/v1/messages/interactive', 'post'>;
export type SendLocationRequest = RequestBody<'/api/v1/messages/location', 'post'>;
export type SendContactRequest = RequestBody<'/api/v1/messages/contact', 'post'>;
export type SendReactionRequest = RequestBody<'/api/v1/messages/reaction', 'post'>;
export type SendRevokeRequest = RequestBody<'/api/v1/messages/revoke', 'post'>;
export type SendEditRequest = RequestBody<'/api/v1/messages/edit', 'post'>;

/** `GET /webhook`: the configuration and the latest deliveries. */
export type WebhookState = ResponseData<'/api/v1/webhook', 'get'>;
/** The stored webhook configuration (`DELETE /webhook` answers it). */
export type WebhookConfig = ResponseData<'/api/v1/webhook', 'delete'>;
/** `PATCH /webhook`'s body: url, enabled, events, retry, rotateSecret. */
export type WebhookUpdate = RequestBody<'/api/v1/webhook', 'patch'>;
/** One POST to the webhook (an attempt), as `GET /webhook` lists them. */
export type Delivery = WebhookState['deliveries'][number];

export type ApiKey = ResponseData<'/api/v1/keys', 'get'>[number];
/** `POST /keys`: the key's record and, this once, the key itself. */
export type CreatedApiKey = ResponseData<'/api/v1/keys', 'post'>;

export type OutboxEntry = ResponseData<'/api/v1/sandbox/outbox', 'get'>[number];

export type Plan = ResponseData<'/api/v1/admin/plans', 'post'>;
export type Account = ResponseData<'/api/v1/admin/accounts/{id}', 'get'>;
