import fc from 'fast-check';
import { isErrorEnvelope, parseRawResponse, rawExchange } from './raw-http';

/** An OpenAPI schema object, as far as the fuzzer reads it. */
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  maxLength?: number;
}

interface Operation {
  method: string;
  path: string;
  auth: 'key' | 'admin' | 'none';
  body?: Schema;
  query: string[];
}

const HUGE = 'x'.repeat(200_000);
const DEEP = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;

/** Strings a careless or hostile client sends: control characters, NUL, lone surrogates, huge ones. */
const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\u202e',
    '\r\n',
    '%00',
    '../../etc/passwd',
    HUGE.slice(0, 5_000),
  ),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString'),
);

/** A value shaped by the schema, or on purpose not: wrong types, huge and deep values. */
function valueFor(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(fc.anything({ maxDepth: 2 }), nastyString, fc.constant(HUGE), fc.constant(null));
  if (!schema || depth > 3) return wrong;
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices) return fc.oneof(...choices.map((choice) => valueFor(choice, depth + 1)), wrong);
  if (schema.enum)
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...schema.enum) },
      { weight: 1, arbitrary: wrong },
    );
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return fc.oneof({ weight: 3, arbitrary: nastyString }, { weight: 1, arbitrary: wrong });
    case 'integer':
    case 'number':
      return fc.oneof(fc.integer(), fc.double(), fc.constantFrom(-1, 0, 2 ** 53, 1e308), wrong);
    case 'boolean':
      return fc.oneof(fc.boolean(), wrong);
    case 'array':
      return fc.oneof(fc.array(valueFor(schema.items, depth + 1), { maxLength: 5 }), wrong);
    case 'object':
      return fc.oneof({ weight: 3, arbitrary: objectFor(schema, depth) }, { weight: 1, arbitrary: wrong });
    default:
      return wrong;
  }
}

function objectFor(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) record[name] = valueFor(property, depth + 1);
  return fc
    .tuple(
      fc.record(record, { requiredKeys: [] }),
      fc.dictionary(
        fc.oneof(nastyString, fc.constantFrom('__proto__', 'constructor')),
        fc.anything({ maxDepth: 1 }),
        {
          maxKeys: 2,
        },
      ),
    )
    .map(([known, extra]) => Object.assign(Object.create(null), known, Math.random() < 0.3 ? extra : {}));
}

/** The body bytes: the generated value as JSON, or JSON broken in the ways parsers trip on. */
function bodyFor(schema: Schema | undefined): fc.Arbitrary<Buffer | undefined> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: valueFor(schema).map((value) => Buffer.from(JSON.stringify(value) ?? 'null', 'utf8')),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        undefined,
        Buffer.from('{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}'),
        Buffer.from('{"sessionId":"\\ud800","to":"\\u0000","text":"\\udc00"}'),
        Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]),
        Buffer.from(DEEP),
        Buffer.from('{"a":'.repeat(5_000)),
        Buffer.from('{'),
        Buffer.from('null'),
        Buffer.from('"\u0000"'),
      ),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)) },
  );
}

const queryValue = fc.oneof(
  nastyString.map((value) => encodeURIComponent(value.replace(/[\ud800-\udfff]/g, ''))),
  fc.constantFrom('%00', '%ff', '%', '%zz', 'a&b', HUGE.slice(0, 3_000)),
);

/** Path parameters: ids of every form, valid, malformed and absurdly long. */
const idValue = fc.oneof(
  fc.uuid(),
  fc.constantFrom('x'.repeat(5_000), '%00', '..', '%2e%2e', 'null', '0', '-1', '%ff'),
  fc
    .string({ minLength: 1 })
    .map((value) => encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '')) || 'x'),
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/vnd.api+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  'application/json; charset=utf-16',
);

/** How the body is framed on the wire: honest, chunked, or with lengths that contradict each other. */
const framing = fc.constantFrom(
  'length',
  'length',
  'length',
  'chunked',
  'chunked-and-length',
  'double-length',
  'short-length',
);

function operationsOf(document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      const security = JSON.stringify(operation.security ?? document.security ?? []);
      const auth = security.includes('admin')
        ? 'admin'
        : security === '[]' || security.includes('{}')
          ? 'none'
          : 'key';
      operations.push({
        method: method.toUpperCase(),
        path,
        auth: path.startsWith('/api/v1/admin') ? 'admin' : auth,
        body: operation.requestBody?.content?.['application/json']?.schema,
        query: (operation.parameters ?? [])
          .filter((parameter: any) => parameter.in === 'query')
          .map((parameter: any) => parameter.name),
      });
    }
  }
  return operations;
}

function request(
  operation: Operation,
  ids: string[],
  query: [string, string][],
  body: Buffer | undefined,
  type: string,
  frame: string,
  credentials: { key: string; adminToken: string },
): string[] {
  let index = 0;
  const path = operation.path.replace(/\{[^}]+\}/g, () => ids[index++ % ids.length]!);
  const search = query.map(([name, value]) => `${encodeURIComponent(name)}=${value}`).join('&');
  const head = [
    `${operation.method} ${path}${search ? `?${search}` : ''} HTTP/1.1`,
    'Host: fuzz',
    'Connection: close',
  ];
  if (operation.auth === 'key') head.push(`x-api-key: ${credentials.key}`);
  if (operation.auth === 'admin') head.push(`Authorization: Bearer ${credentials.adminToken}`);
  if (type) head.push(`Content-Type: ${type}`);
  const bytes = body ?? Buffer.alloc(0);
  if (frame === 'chunked' || frame === 'chunked-and-length') {
    head.push('Transfer-Encoding: chunked');
    if (frame === 'chunked-and-length') head.push(`Content-Length: ${bytes.length}`);
    const chunked =
      bytes.length > 0
        ? `${bytes.length.toString(16)}\r\n${bytes.toString('latin1')}\r\n0\r\n\r\n`
        : '0\r\n\r\n';
    return [`${head.join('\r\n')}\r\n\r\n`, chunked];
  }
  if (frame === 'double-length')
    head.push(`Content-Length: ${bytes.length}`, `Content-Length: ${bytes.length + 1}`);
  else if (frame === 'short-length' && bytes.length > 1) head.push(`Content-Length: ${bytes.length - 1}`);
  else head.push(`Content-Length: ${bytes.length}`);
  return [Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]).toString('latin1')];
}

/**
 * Sends generated requests to every operation of the OpenAPI document over raw sockets (so framing
 * and bytes are exactly what was generated) and checks each answer. Returns the request count.
 */
export async function fuzzOperations(
  url: string,
  document: any,
  credentials: { key: string; adminToken: string },
  runsPerOperation = 45,
): Promise<number> {
  let count = 0;
  for (const operation of operationsOf(document)) {
    await fc.assert(
      fc.asyncProperty(
        fc.array(idValue, { minLength: 1, maxLength: 2 }),
        fc.array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom(...operation.query, '__proto__', 'sessionId[]'),
              fc.string({ maxLength: 8 }),
            ),
            queryValue,
          ),
          {
            maxLength: 3,
          },
        ),
        bodyFor(operation.body),
        contentType,
        framing,
        async (ids, query, body, type, frame) => {
          const chunks = request(operation, ids, query, body, type, frame, credentials);
          const exchange = await rawExchange(
            url,
            chunks.map((chunk) => Buffer.from(chunk, 'latin1')),
            {
              giveUpMs: 15_000,
            },
          );
          count += 1;
          const { status, body: answer } = parseRawResponse(exchange.response);
          const where = `${operation.method} ${operation.path} → ${status} ${exchange.response.slice(0, 300)}`;
          // A short Content-Length leaves a stray byte that is itself a malformed next request: answered 400 or closed.
          // Two Content-Length headers are refused at the head (request smuggling): the server answers 400
          // and closes, and when a large body is still on its way the client's write meets a reset that
          // discards that answer (TCP). Refused and reset at once is right; silence until we give up is not.
          const refusedWhileSending =
            frame === 'double-length' && exchange.reset && exchange.closedAfterMs < 5_000;
          if (status === 0 && !refusedWhileSending) throw new Error(`no answer: ${where}`);
          if (status >= 500) throw new Error(`server error: ${where}`);
          if (status >= 400 && !isErrorEnvelope(answer)) throw new Error(`not the envelope: ${where}`);
        },
      ),
      { numRuns: runsPerOperation, endOnFailure: true },
    );
  }
  return count;
}
