import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/jumbe-api';

/** How to reach a Jumbe gateway, and as whom. */
export interface JumbeClientOptions {
  /** The gateway's address, e.g. `http://localhost:8080` (paths in calls start with `/api/v1`). */
  baseUrl: string;
  /** A customer API key, sent as `x-api-key` (customer routes). */
  apiKey?: string;
  /** The operator's `JUMBE_ADMIN_TOKEN`, sent as `Authorization: Bearer` (admin routes). */
  adminToken?: string;
  /** Headers added to every request (e.g. `idempotency-key` per call is better passed per call). */
  headers?: Record<string, string>;
  /** A `fetch` to use instead of the global one (tests, proxies, older runtimes). */
  fetch?: typeof globalThis.fetch;
}

/** A typed client for every route of Jumbe's OpenAPI document: `client.GET('/api/v1/sessions')`. */
export type JumbeClient = Client<paths>;

/**
 * A client whose paths, parameters, bodies and responses are typed from the OpenAPI document.
 * Calls resolve to `{ data }` on success or `{ error }` (the `{ message, error: { code } }` envelope)
 * on a documented error status, plus the raw `response`; they do not throw on HTTP errors.
 */
export function createJumbeClient(options: JumbeClientOptions): JumbeClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.adminToken) headers['authorization'] = `Bearer ${options.adminToken}`;
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
