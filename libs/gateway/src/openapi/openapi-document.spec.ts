import { WEBHOOK_EVENT_SCHEMAS } from '@jumbe/contracts';
import { buildOpenApiDocument } from './openapi-document';
import { GATEWAY_ROUTES as ROUTES } from './gateway-routes';

// On the sandbox network every described route is served, so this document describes them all.
const document = buildOpenApiDocument('9.9.9-test', 'sandbox') as any;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of the document, with where it sits. */
function operations(): Array<{ path: string; method: string; operation: any }> {
  return Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

/** Every `$ref` value in `value`, with the JSON path where it was found. */
function collectRefs(value: unknown, at: string, found: Array<{ at: string; ref: string }>): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => collectRefs(item, `${at}/${index}`, found));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push({ at, ref: child });
      else collectRefs(child, `${at}/${key}`, found);
    }
  }
}

/** Resolves a same-document reference (`#/a/b`) per RFC 6901; undefined when it leads nowhere. */
function resolvePointer(ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  const pointer = ref.slice(1);
  if (pointer === '') return document;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, token)) {
      return undefined;
    }
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

describe('buildOpenApiDocument', () => {
  it('is an OpenAPI 3.1.0 document carrying the running version', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toEqual(expect.objectContaining({ title: 'Jumbe API', version: '9.9.9-test' }));
  });

  it('describes every route the features describe under its path and method', () => {
    const missing = ROUTES.filter(
      (route) => document.paths[route.path]?.[route.method.toLowerCase()] === undefined,
    );
    expect(missing.map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });

  it('documents the QR as JSON, SVG or PNG, as format= chooses', () => {
    const success = document.paths['/api/v1/session/qr'].get.responses['200'];
    expect(Object.keys(success.content)).toEqual(['application/json', 'image/svg+xml', 'image/png']);
    expect(success.content['image/svg+xml'].schema).toEqual({ type: 'string' });
    expect(success.content['image/png'].schema).toEqual({ type: 'string', format: 'binary' });
  });

  it('documents the health document, not the error envelope, as the 503 of /health', () => {
    const responses = document.paths['/api/v1/health'].get.responses;
    expect(responses['503'].content['application/json'].schema).toEqual(
      responses['200'].content['application/json'].schema,
    );
  });

  it("describes nothing beyond the features' routes, and no route twice", () => {
    const described = operations().map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    const catalogued = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(catalogued).size).toBe(catalogued.length);
    expect([...described].sort()).toEqual([...catalogued].sort());
  });

  it('leaves out the sandbox control routes, and only those, on the WhatsApp network', () => {
    const onWhatsApp = buildOpenApiDocument('9.9.9-test', 'whatsapp') as any;
    const described = Object.keys(onWhatsApp.paths);
    expect(described.filter((path) => path.startsWith('/api/v1/sandbox'))).toEqual([]);
    expect(described).toEqual(
      Object.keys(document.paths).filter((path) => !path.startsWith('/api/v1/sandbox')),
    );
  });

  it('resolves every $ref inside the document', () => {
    const refs: Array<{ at: string; ref: string }> = [];
    collectRefs(document, '#', refs);
    expect(refs.length).toBeGreaterThan(0);
    const dangling = refs.filter(({ ref }) => resolvePointer(ref) === undefined);
    expect(dangling).toEqual([]);
  });

  it('gives every operation a unique operationId', () => {
    const ids = operations().map(({ operation }) => operation.operationId as unknown);
    for (const id of ids) expect(id).toEqual(expect.stringMatching(/^[A-Za-z][A-Za-z0-9]*$/));
    const duplicates = ids.filter((id, index) => ids.indexOf(id) !== index);
    expect(duplicates).toEqual([]);
  });

  it('has a JSON request body exactly on the routes that take a body', () => {
    for (const route of ROUTES) {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      if (route.body) {
        expect({
          route: `${route.method} ${route.path}`,
          schema: operation.requestBody?.content?.['application/json']?.schema,
        }).toEqual({
          route: `${route.method} ${route.path}`,
          schema: expect.objectContaining({ type: 'object' }),
        });
      } else {
        expect({ route: `${route.method} ${route.path}`, requestBody: operation.requestBody }).toEqual({
          route: `${route.method} ${route.path}`,
          requestBody: undefined,
        });
      }
    }
  });

  it('declares every {parameter} of a path as a required path parameter', () => {
    for (const { path, operation } of operations()) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      const declared = (operation.parameters as any[]).filter((parameter) => parameter.in === 'path');
      expect(declared.map((parameter) => parameter.name).sort()).toEqual([...names].sort());
      for (const parameter of declared) expect(parameter.required).toBe(true);
    }
  });

  it('documents a success response with a schema, and the error responses of routes that need a key', () => {
    for (const route of ROUTES) {
      const responses = document.paths[route.path][route.method.toLowerCase()].responses;
      // A file travels with its own type (image/png, application/pdf, …): any type is documented.
      const mediaType = route.file ? '*/*' : 'application/json';
      expect(responses[String(route.successStatus ?? 200)]?.content?.[mediaType]?.schema).toBeDefined();
      if (route.auth === 'key') {
        // unauthorized, monthly_limit_reached, account_suspended/forbidden, rate_limited, unavailable
        for (const status of ['401', '402', '403', '429', '503']) {
          expect(responses[status]?.content['application/json'].schema).toEqual({
            $ref: '#/components/schemas/Error',
          });
        }
      }
      if (route.body) {
        for (const status of ['400', '413', '415']) expect(responses[status]).toBeDefined();
      }
    }
  });

  it('survives JSON serialisation without losing or changing anything', () => {
    const text = JSON.stringify(document);
    expect(JSON.parse(text)).toStrictEqual(document);
  });

  it('documents the opt-in webhook retry (1–10, nullable) and each delivery attempt', () => {
    const resolve = (schema: any): any => (schema?.$ref ? resolve(resolvePointer(schema.$ref)) : schema);
    const body = resolve(
      document.paths['/api/v1/webhook'].patch.requestBody.content['application/json'].schema,
    );
    const retry = JSON.stringify(resolve(body.properties.retry));
    expect(retry).toContain('"minimum":1');
    expect(retry).toContain('"maximum":10');
    expect(retry).toContain('null');
    const state = resolve(
      document.paths['/api/v1/webhook'].get.responses['200'].content['application/json'].schema,
    );
    const data = resolve(state.properties.data);
    expect(Object.keys(data.properties)).toContain('retry');
    expect(Object.keys(resolve(resolve(data.properties.deliveries).items).properties)).toContain('attempt');
  });

  it('documents every webhook event type, with the delivery id in its body', () => {
    const document = buildOpenApiDocument('test', 'sandbox') as {
      webhooks: Record<
        string,
        { post: { requestBody: { content: Record<string, { schema: JsonObject }> } } }
      >;
    };
    expect(Object.keys(document.webhooks).sort()).toEqual(Object.keys(WEBHOOK_EVENT_SCHEMAS).sort());
    for (const [name, operation] of Object.entries(document.webhooks)) {
      const schema = operation.post.requestBody.content['application/json']!.schema;
      expect(schema['required']).toEqual(expect.arrayContaining(['event', 'deliveryId', 'customerId']));
      expect((schema['properties'] as Record<string, JsonObject>)['event']).toMatchObject({ const: name });
    }
  });
});

type JsonObject = Record<string, unknown>;
