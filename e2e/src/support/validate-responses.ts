// The contract test (issue 31): every response an end-to-end suite receives from Jumbe's API is
// checked against the OpenAPI document the gateway serves: the operation, the status, the content
// type and the JSON body's schema. A Jest setup file (e2e/ and e2e-security/): it wraps the global
// `fetch` every HTTP helper uses, and fails the test that received an undocumented response.
import { join } from 'node:path';
import { excludedExchange } from './contract-exclusions';
import { type Exchange, OpenApiContract } from './openapi-contract';

type BuildDocument = (version: string, network: 'sandbox' | 'whatsapp') => Record<string, unknown>;

// The document exactly as the processes under test serve it: built by the same compiled module in
// dist/ (the suites run dist/, built by their global setup), for either network.
const { buildOpenApiDocument } = require(
  join(__dirname, '../../../dist/libs/gateway/src/openapi/openapi-document.js'),
) as { buildOpenApiDocument: BuildDocument };
const contracts = (['sandbox', 'whatsapp'] as const).map(
  (network) => new OpenApiContract(buildOpenApiDocument('contract-test', network) as never),
);

/** Bodies worth reading to check: JSON only (files and images are checked by content type). */
const READ_BODY = /^application\/(.+\+)?json/;
/** How long the check waits for a body the test itself may never read to the end. */
const BODY_WAIT_MS = 2_000;

const pending = new Set<Promise<void>>();
const violations: string[] = [];
const originalFetch = globalThis.fetch;

globalThis.fetch = async function checkedFetch(input: string | URL | Request, init?: RequestInit) {
  const response = await originalFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!isApiPath(url.pathname)) return response;
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const check = inspect(method, url, response.clone()).finally(() => pending.delete(check));
  pending.add(check);
  return response;
};

/** Fails with every response received since the last check that the document does not describe. */
async function failOnViolations(): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...pending]),
    new Promise((resolve) => (timer = setTimeout(resolve, BODY_WAIT_MS))),
  ]);
  clearTimeout(timer);
  const found = violations.splice(0);
  if (found.length > 0) {
    throw new Error(`Responses the OpenAPI document does not describe:\n- ${found.join('\n- ')}`);
  }
}

// A test's own requests (and its suite's beforeAll's, reported with its first test); then what the
// suite's afterAll hooks received.
afterEach(failOnViolations);
afterAll(failOnViolations);

/** Jumbe's API: the status document at `/` and everything under `/api/`. */
function isApiPath(path: string): boolean {
  return path === '/' || path === '/api' || path.startsWith('/api/');
}

async function inspect(method: string, url: URL, response: Response): Promise<void> {
  const contentType = response.headers.get('content-type');
  const exchange: Exchange = { method, path: url.pathname, status: response.status, contentType };
  try {
    if (contentType && READ_BODY.test(contentType)) exchange.body = await response.text();
    else await response.body?.cancel();
  } catch {
    return; // the connection went away mid-body (a test killing the server): nothing to check
  }
  if (excludedExchange(exchange)) return;
  const problems = contracts.map((contract) => contract.problems(exchange));
  if (problems.some((list) => list.length === 0)) return;
  violations.push(`${method} ${url.pathname}${url.search}: ${problems[0]?.join('; ')}`);
}
