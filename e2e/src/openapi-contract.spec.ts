// The contract test's checker (support/openapi-contract.ts) on exchanges written out by hand: it
// passes what the document describes and names what it does not, so a silent checker cannot pass
// every suite.
import { join } from 'node:path';
import { OpenApiContract } from './support/openapi-contract';

const { buildOpenApiDocument } = require(
  join(__dirname, '../../dist/libs/gateway/src/openapi/openapi-document.js'),
);
const contract = new OpenApiContract(buildOpenApiDocument('test', 'sandbox'));
const json = 'application/json; charset=utf-8';
const session = {
  sessionId: 'shop',
  phoneNumber: null,
  connected: false,
  state: 'disconnected',
  updatedAt: null,
  reason: null,
};

describe('the OpenAPI contract checker', () => {
  it('passes documented responses: JSON bodies, the QR image, errors and unknown routes', () => {
    const exchanges = [
      {
        method: 'GET',
        path: '/api/v1/session/status',
        status: 200,
        contentType: json,
        body: JSON.stringify({ data: session }),
      },
      { method: 'GET', path: '/api/v1/session/qr', status: 200, contentType: 'image/png' },
      { method: 'GET', path: '/api/v1/session/qr', status: 200, contentType: 'image/svg+xml' },
      { method: 'GET', path: '/api/v1/messages/media', status: 200, contentType: 'application/pdf' },
      {
        method: 'GET',
        path: '/api/v1/sessions',
        status: 401,
        contentType: json,
        body: JSON.stringify({ message: 'Missing or invalid API key.', error: { code: 'unauthorized' } }),
      },
      {
        method: 'GET',
        path: '/api/v1/no-such-route',
        status: 404,
        contentType: json,
        body: JSON.stringify({
          message: 'Route GET /api/v1/no-such-route not found.',
          error: { code: 'not_found' },
        }),
      },
    ];
    expect(exchanges.map((exchange) => contract.problems(exchange))).toEqual(exchanges.map(() => []));
  });

  it('names an undocumented status, content type, body and route', () => {
    const problems = [
      { method: 'GET', path: '/api/v1/usage', status: 418, contentType: json, body: '{}' },
      {
        method: 'GET',
        path: '/api/v1/session/status',
        status: 200,
        contentType: 'text/html',
        body: undefined,
      },
      {
        method: 'GET',
        path: '/api/v1/session/status',
        status: 200,
        contentType: json,
        body: JSON.stringify({ data: { sessionId: 7 } }),
      },
      { method: 'GET', path: '/api/v1/no-such-route', status: 200, contentType: json, body: '{}' },
    ].map((exchange) => contract.problems(exchange));
    expect(problems).toEqual([
      [expect.stringContaining('status 418 is not documented for GET /api/v1/usage')],
      [expect.stringContaining('answered text/html; documented: application/json')],
      [expect.stringMatching(/200 does not match its schema: .*sessionId/)],
      ['GET /api/v1/no-such-route is not in the document but answered 200'],
    ]);
  });
});
