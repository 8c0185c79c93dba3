/** The dashboard's only way to the server: the public HTTP API, with the contract's error envelope. */

export type Credential = { kind: 'key'; key: string } | { kind: 'admin'; token: string };

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

/** The contract's error envelope. */
interface ErrorBody {
  message?: string;
  error?: { code?: string; details?: Array<{ path: string; problem: string }> };
}

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
  const headers: Record<string, string> = {};
  if (credential.kind === 'key') {
    headers['x-api-key'] = credential.key;
    // A dashboard read: not an API hit (the gateway honours it on GETs of what the dashboard shows).
    if (method === 'GET') headers[DASHBOARD_HEADER] = '1';
  } else headers['authorization'] = `Bearer ${credential.token}`;
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

/** The header that marks a request as the dashboard's own (README, "The dashboard"). */
export const DASHBOARD_HEADER = 'x-jumbe-dashboard';

export const describeError = (error: unknown): string =>
  error instanceof ApiFailure
    ? `${error.message} (${error.code})`
    : error instanceof Error
      ? error.message
      : String(error);

export interface Session {
  sessionId: string;
  phoneNumber: string | null;
  connected: boolean;
  state: string;
  updatedAt: string | null;
  reason: string | null;
}
export interface Usage {
  plan: string;
  periodStart: string;
  periodEnd: string;
  apiHits: number;
  apiHitLimit: number;
  messagesSent: number;
  sendFailures: number;
  sessions: number;
  sessionLimit: number;
  hitsPerDay: Array<{ date: string; apiHits: number }>;
}
export interface SendFailure {
  id: string;
  sessionId: string;
  to: string | null;
  type: string;
  code: string;
  message: string;
  createdAt: string;
}
export interface Delivery {
  id: string;
  event: string;
  sessionId: string;
  url: string;
  status: 'success' | 'failed';
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: string;
  /** 1 for an event's first POST; its opt-in retries are 2, 3, … under the same `id`. */
  attempt: number;
  /** The first 1 KiB of the receiver's answer (the event sent is not kept for reading). */
  response: string | null;
}
export interface WebhookState {
  url: string | null;
  enabled: boolean;
  hasSecret: boolean;
  /** Event types delivered (`webhook.test` always is). */
  events: string[];
  /** Opt-in automatic retries; null when off (the default). */
  retry: { attempts: number } | null;
  deliveries: Delivery[];
}

/** The webhook's event types (README, "Event types"); `webhook.test` always goes. */
export const EVENT_TYPES = [
  'message.received',
  'message.status',
  'message.reaction',
  'message.revoked',
  'message.edited',
  'session.status',
] as const;

/** An event as the webhook and the event stream carry it (fields beyond these vary by type). */
export interface EventEnvelope {
  event: string;
  deliveryId?: string;
  timestamp?: string;
  sessionId?: string;
  message?: {
    id?: string;
    from?: string;
    to?: string;
    replyTo?: string;
    chat?: string;
    pushName?: string | null;
    text?: string | null;
    status?: string;
    media?: { type?: string; caption?: string | null; fileName?: string | null } | null;
    [field: string]: unknown;
  };
  session?: { state?: string; phoneNumber?: string | null; reason?: string | null };
  reaction?: { messageId?: string; emoji?: string; from?: string; replyTo?: string };
  revoked?: { messageId?: string; from?: string; replyTo?: string };
  edited?: { messageId?: string; text?: string; from?: string; replyTo?: string };
  [field: string]: unknown;
}
export interface ApiKey {
  id: string;
  name: string | null;
  scope: 'full' | 'read';
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}
export interface Plan {
  id: string;
  name: string;
  monthlyApiHits: number;
  maxSessions: number;
}
export interface Account {
  id: string;
  name: string;
  plan: string;
  suspended: boolean;
  createdAt: string;
}
