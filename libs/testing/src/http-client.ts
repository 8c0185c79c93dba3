/** A small fetch wrapper for end-to-end tests: JSON in, status + headers + parsed body out. */
export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  bearer?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export async function http<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['x-api-key'] = options.key;
  if (options.bearer) headers['authorization'] = `Bearer ${options.bearer}`;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON (e.g. an image or the docs page); callers read `text`
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** Binds the base URL so tests read `api.post('/api/v1/...', { key, body })`. */
export function apiClient(baseUrl: string) {
  return {
    baseUrl,
    get: <T = any>(path: string, options?: RequestOptions) => http<T>(baseUrl, 'GET', path, options),
    post: <T = any>(path: string, options?: RequestOptions) => http<T>(baseUrl, 'POST', path, options),
    put: <T = any>(path: string, options?: RequestOptions) => http<T>(baseUrl, 'PUT', path, options),
    patch: <T = any>(path: string, options?: RequestOptions) => http<T>(baseUrl, 'PATCH', path, options),
    delete: <T = any>(path: string, options?: RequestOptions) => http<T>(baseUrl, 'DELETE', path, options),
  };
}

export type ApiClient = ReturnType<typeof apiClient>;
