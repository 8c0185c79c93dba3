import {
  deliveredEventSchema,
  ERROR_STATUS,
  errorBodySchema,
  type ErrorCode,
  WEBHOOK_EVENT_SCHEMAS,
  type WebhookEventName,
  sendMediaUploadFieldsSchema,
} from '@jumbe/contracts';
import { z } from 'zod';
import type { NetworkName, RouteDescription } from '../http/route-description';
import { routesOn } from './gateway-routes';

type JsonSchema = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

/** Errors every route of a kind can return, on top of its own. */
const COMMON_ERRORS: Record<RouteDescription['auth'], ErrorCode[]> = {
  none: [],
  key: [
    'unauthorized',
    'account_suspended',
    'monthly_limit_reached',
    'forbidden',
    'rate_limited',
    'unavailable',
  ],
  admin: ['unauthorized', 'validation_error', 'not_found'],
};

/**
 * The OpenAPI 3.1 document of a deployment on `network`, generated from the routes each feature
 * describes beside its controller (`*.routes.ts`) and their validation schemas.
 */
export function buildOpenApiDocument(version: string, network: NetworkName): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routesOn(network)) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Jumbe API',
      version,
      description:
        'Self-hosted WhatsApp HTTP gateway. Authenticate customer routes with `x-api-key: <key>` or `Authorization: Bearer <key>`; admin routes with `Authorization: Bearer <JUMBE_ADMIN_TOKEN>`. Errors are `{ message, error: { code, details? } }`.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearerKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'API key (customer routes) or admin token (admin routes)',
        },
      },
      schemas: { Error: toSchema(errorBodySchema, 'output') },
    },
    paths,
    webhooks: webhookOperations(),
  };
}

/** What the account's webhook receives: one signed POST per event (from libs/contracts' schemas). */
function webhookOperations(): Record<string, unknown> {
  const names = Object.keys(WEBHOOK_EVENT_SCHEMAS) as WebhookEventName[];
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        post: {
          summary: `The ${name} event`,
          description:
            "Signed with the account's webhook secret: `X-Service-Signature` over `X-Service-Timestamp` and the body, and the same as Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). `X-Service-Event` names the event; `X-Service-Delivery` equals the body's `deliveryId` (de-duplicate on it). Answer 2xx within 10 s; anything else is a failed delivery.",
          requestBody: {
            required: true,
            content: { 'application/json': { schema: toSchema(deliveredEventSchema(name), 'output') } },
          },
          responses: { '200': { description: 'Received (any 2xx).' } },
        },
      },
    ]),
  );
}

/** The media route's alternative body: the file itself (multipart), beside the JSON body with a `url`. */
const UPLOAD_CONTENT = (() => {
  const fields = toSchema(sendMediaUploadFieldsSchema, 'input') as {
    properties?: object;
    required?: string[];
  };
  return {
    'multipart/form-data': {
      schema: {
        ...fields,
        properties: { ...fields.properties, file: { type: 'string', format: 'binary' } },
        required: [...(fields.required ?? []), 'file'],
      },
    },
  };
})();

function operation(route: RouteDescription): Record<string, unknown> {
  const responses: Record<string, unknown> = {
    [String(route.successStatus ?? 200)]: route.file
      ? {
          description: route.file,
          headers: FILE_HEADERS,
          // Any type: a file travels with its own (`image/png`, `application/pdf`, …).
          content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
        }
      : {
          description: ['Success', ...Object.values(route.alsoAnswers ?? {})].join(' '),
          content: {
            'application/json': { schema: toSchema(route.response, 'output') },
            ...alternativeContent(route.alsoAnswers ?? {}),
          },
        },
  };
  for (const code of new Set([
    ...COMMON_ERRORS[route.auth],
    ...(route.errors ?? []),
    ...(route.body ? bodyErrors : []),
    // A query string or path parameter the schema refuses is a validation error like a bad body.
    ...(route.query || route.params ? (['validation_error'] as ErrorCode[]) : []),
  ])) {
    const status = String(ERROR_STATUS[code]);
    const existing = responses[status] as { description: string } | undefined;
    responses[status] = {
      description: existing ? `${existing.description}, \`${code}\`` : `\`${code}\``,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  for (const [status, description] of Object.entries(route.successBodyOn ?? {})) {
    responses[status] = {
      description,
      content: { 'application/json': { schema: toSchema(route.response, 'output') } },
    };
  }
  return {
    tags: [route.tag],
    summary: route.summary,
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    security: security(route.auth),
    parameters: [...parameters(route.query, 'query'), ...parameters(route.params, 'path')],
    ...(route.body
      ? {
          requestBody: {
            required: false,
            content: {
              'application/json': { schema: toSchema(route.body, 'input') },
              ...(route.method === 'POST' && route.path === '/api/v1/messages/media' ? UPLOAD_CONTENT : {}),
            },
          },
        }
      : {}),
    responses,
  };
}

/** Non-JSON representations of a success response: text formats as strings, the others binary. */
function alternativeContent(mediaTypes: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(mediaTypes).map((mediaType) => [
      mediaType,
      {
        schema: /^image\/svg\+xml$|^text\//.test(mediaType)
          ? { type: 'string' }
          : { type: 'string', format: 'binary' },
      },
    ]),
  );
}

/** The headers a file response always carries. */
const FILE_HEADERS = {
  'Content-Type': { schema: { type: 'string' }, description: "The file's MIME type." },
  'Content-Length': { schema: { type: 'integer' }, description: "The file's size in bytes." },
  'Content-Disposition': {
    schema: { type: 'string' },
    description: '`attachment; filename="…"; filename*=UTF-8\'\'…`',
  },
};

const bodyErrors: ErrorCode[] = [
  'validation_error',
  'invalid_json',
  'payload_too_large',
  'unsupported_media_type',
];

function security(auth: RouteDescription['auth']): unknown[] {
  if (auth === 'none') return [];
  if (auth === 'admin') return [{ bearerKey: [] }];
  return [{ apiKeyHeader: [] }, { bearerKey: [] }];
}

function parameters(schema: z.ZodType | undefined, where: 'query' | 'path'): unknown[] {
  if (!schema) return [];
  const json = toSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: property,
  }));
}
