/** The dashboard's only way to the server: the public HTTP API, with the contract's error envelope. */
import type { ErrorBody as ContractErrorBody, WebhookEvent, WebhookEventName } from '@jumbe/client';

// The API's shapes, generated from its OpenAPI document by the typed client (packages/client).
export type {
  Account,
  ApiKey,
  Delivery,
  OutboxEntry,
  Plan,
  SendFailure,
  Session,
  Usage,
  WebhookEvent,
  WebhookState,
} from '@jumbe/client';

/**
 * How the tab calls the API: a dashboard session's token (README, "The dashboard"), a customer's
 * or the operator's. The API key or admin token it was signed in with is not kept.
 */
export type Credential = { kind: 'dashboard'; token: string } | { kind: 'admin'; token: string };

/** What a sign-in with an API key answers (`POST /api/v1/dashboard/sessions`). */
export interface DashboardSignIn {
  token: string;
  expiresAt: string;
  scope: 'full' | 'read';
}

let onSessionEnded: () => void = () => undefined;

/**
 * What to do when the gateway refuses the tab's dashboard session (401: signed out elsewhere,
 * 12 hours old, or its key revoked): the app shows the sign-in form again.
 */
export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}

/** Tells the app a session's request was refused 401 (the session has ended). */
export function sessionRefused(status: number): void {
  if (status === 401) onSessionEnded();
}

/** Exchanges an API key for a dashboard session token; the key is not kept anywhere. */
export async function signInWithKey(key: string): Promise<DashboardSignIn> {
  return (await request<DashboardSignIn>('POST', '/dashboard/sessions', { 'x-api-key': key })).data;
}

/** Exchanges the admin token for an operator's dashboard session token; the admin token is not kept. */
export async function signInAsOperator(adminToken: string): Promise<string> {
  const path = '/admin/dashboard-sessions';
  return (await request<{ token: string }>('POST', path, { authorization: `Bearer ${adminToken}` })).data
    .token;
}

/** Ends the dashboard session on the gateway (its token is refused from then on). */
export async function signOutSession(credential: Credential): Promise<void> {
  const path =
    credential.kind === 'admin' ? '/admin/dashboard-sessions/current' : '/dashboard/sessions/current';
  await call(credential, 'DELETE', path).catch(() => undefined);
}

/** An API error as the contract states it: status, code and the message to show the user. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiResult<T> {
  data: T;
  message?: string;
  key?: string;
  secret?: string;
}

/** The error envelope as it may arrive (a proxy's error page is not the contract's). */
type ErrorBody = Partial<Pick<ContractErrorBody, 'message'>> & {
  error?: Partial<ContractErrorBody['error']>;
};

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export async function call<T>(
  credential: Credential,
  method: Method,
  path: string,
  body?: unknown,
): Promise<ApiResult<T>> {
  return JSON.parse(await callText(credential, method, path, body)) as ApiResult<T>;
}

/** The raw body of a successful call (an SVG QR code, say); errors as for `call`. */
export async function callText(
  credential: Credential,
  method: Method,
  path: string,
  body?: unknown,
): Promise<string> {
  try {
    return await requestText(method, path, { authorization: `Bearer ${credential.token}` }, body);
  } catch (error) {
    if (error instanceof ApiFailure) sessionRefused(error.status);
    throw error;
  }
}

async function request<T>(
  method: Method,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<ApiResult<T>> {
  return JSON.parse(await requestText(method, path, headers, body)) as ApiResult<T>;
}

async function requestText(
  method: Method,
  path: string,
  credentialHeaders: Record<string, string>,
  body?: unknown,
): Promise<string> {
  const headers: Record<string, string> = { ...credentialHeaders };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new ApiFailure(0, 'network', 'The gateway could not be reached. Check that Jumbe is running.');
  }
  const text = await response.text();
  if (response.ok) return text;
  let parsed: ErrorBody | null = null;
  try {
    parsed = text ? (JSON.parse(text) as ErrorBody) : null;
  } catch {
    parsed = null;
  }
  throw new ApiFailure(
    response.status,
    parsed?.error?.code ?? 'http_error',
    errorText(parsed?.message ?? `The gateway answered ${response.status}.`, parsed?.error?.details),
  );
}

/**
 * The error's message, with each detail the message does not already say: the API's validation
 * messages often name their details, and saying them twice buries them.
 */
export function errorText(
  message: string,
  details: Array<{ path: string; problem: string }> | undefined,
): string {
  const extra = (Array.isArray(details) ? details : [])
    .filter((d) => !message.includes(d.problem))
    .map((d) => `${d.path}: ${d.problem}`);
  const unique = [...new Set(extra)];
  return unique.length === 0 ? message : `${message} ${unique.join('; ')}`;
}

export const describeError = (error: unknown): string =>
  error instanceof ApiFailure
    ? `${error.message} (${error.code})`
    : error instanceof Error
      ? error.message
      : String(error);

/**
 * The event types an account chooses (README, "Event types"): every one the API has but
 * `webhook.test`, which always goes to the webhook and never on the event stream.
 */
export const EVENT_TYPES: ReadonlyArray<Exclude<WebhookEventName, 'webhook.test'>> = [
  'message.received',
  'message.status',
  'message.reaction',
  'message.revoked',
  'message.edited',
  'message.poll_vote',
  'session.status',
  'group.participants',
  'group.updated',
  'call.received',
];

/** An event as the webhook and the event stream carry it (the stream adds nothing, drops nothing). */
export type EventEnvelope = WebhookEvent;
