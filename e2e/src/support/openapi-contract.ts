import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

/** One HTTP exchange as a client saw it. */
export interface Exchange {
  method: string;
  /** The path without the query string. */
  path: string;
  status: number;
  /** The `Content-Type` header, parameters included, or null. */
  contentType: string | null;
  /** The body as text, when it was read (JSON bodies); undefined for binary bodies. */
  body?: string;
}

interface Operation {
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

type Document = { paths: Record<string, Record<string, Operation>> };

/** The error envelope every unknown route answers (not an operation of the document, so checked here). */
const ERROR_SCHEMA_POINTER = '#/components/schemas/Error';

/**
 * Checks exchanges against an OpenAPI 3.1 document: the operation exists, the status is documented,
 * the content type is one the status documents, and a JSON body matches its schema (JSON Schema
 * 2020-12). Each schema is compiled once, on first use.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly routes: { template: string; pattern: RegExp; literalLength: number }[];

  constructor(private readonly document: Document) {
    this.ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
    this.ajv.addFormat('base64', /^[A-Za-z0-9+/]*={0,2}$/);
    this.ajv.addFormat('binary', () => true);
    this.ajv.addSchema(document as object, 'openapi');
    // Literal segments win over parameters (`/webhook/test` before `/webhook/{id}`).
    this.routes = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(
          `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
        ),
        literalLength: template.replace(/\{[^}]+\}/g, '').length,
      }))
      .sort((a, b) => b.literalLength - a.literalLength);
  }

  /** What is wrong with the exchange (empty when the document describes it). */
  problems(exchange: Exchange): string[] {
    const template = this.routes.find((route) => route.pattern.test(exchange.path))?.template;
    const method = exchange.method === 'HEAD' ? 'get' : exchange.method.toLowerCase();
    const operation = template ? this.document.paths[template]?.[method] : undefined;
    if (!template || !operation) return this.unknownRouteProblems(exchange);
    const statusKey = documentedStatus(operation, exchange.status);
    if (!statusKey) {
      return [
        `status ${exchange.status} is not documented for ${method.toUpperCase()} ${template} (documented: ${Object.keys(operation.responses ?? {}).join(', ')}); body: ${exchange.body?.slice(0, 300)}`,
      ];
    }
    const content = operation.responses?.[statusKey]?.content;
    const mediaType = exchange.contentType?.split(';')[0]?.trim().toLowerCase() ?? null;
    if (!content) {
      return exchange.body ? [`${exchange.status} of ${template} has a body but documents none`] : [];
    }
    const documented = mediaType ? documentedMediaType(content, mediaType) : undefined;
    if (!mediaType || !documented) {
      return [
        `${exchange.status} of ${method.toUpperCase()} ${template} answered ${mediaType ?? 'no content type'}; documented: ${Object.keys(content).join(', ')}`,
      ];
    }
    if (documented !== 'application/json' || exchange.body === undefined || exchange.method === 'HEAD')
      return [];
    return this.schemaProblems(
      ['paths', template, method, 'responses', statusKey, 'content', documented, 'schema'],
      exchange,
    );
  }

  /** A route the document does not have: only the 404/405 error envelope is acceptable. */
  private unknownRouteProblems(exchange: Exchange): string[] {
    if (exchange.status !== 404 && exchange.status !== 405) {
      return [`${exchange.method} ${exchange.path} is not in the document but answered ${exchange.status}`];
    }
    if (exchange.method === 'HEAD') return [];
    return this.errorEnvelopeProblems(exchange);
  }

  private errorEnvelopeProblems(exchange: Exchange): string[] {
    if (!exchange.contentType?.startsWith('application/json') || exchange.body === undefined) {
      return [`${exchange.status} for ${exchange.method} ${exchange.path} is not the JSON error envelope`];
    }
    return this.validate(`openapi${ERROR_SCHEMA_POINTER}`, exchange);
  }

  private schemaProblems(segments: string[], exchange: Exchange): string[] {
    const pointer = segments.map((segment) =>
      encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1')),
    );
    return this.validate(`openapi#/${pointer.join('/')}`, exchange);
  }

  private validate(ref: string, exchange: Exchange): string[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(exchange.body ?? '');
    } catch {
      return [
        `${exchange.status} for ${exchange.method} ${exchange.path} says JSON but is not: ${exchange.body?.slice(0, 200)}`,
      ];
    }
    let validator = this.validators.get(ref);
    if (!validator) {
      validator = this.ajv.getSchema(ref);
      if (!validator) return [`no schema at ${ref}`];
      this.validators.set(ref, validator);
    }
    if (validator(parsed)) return [];
    const errors = (validator.errors ?? []).map(
      (error) => `body${error.instancePath} ${error.message} (${JSON.stringify(error.params)})`,
    );
    return [
      `${exchange.status} does not match its schema: ${errors.join(', ')}; body: ${exchange.body?.slice(0, 300)}`,
    ];
  }
}

/** The key of `content` that covers `mediaType`: itself, its `type/*` range, or `*\/*`. */
function documentedMediaType(content: Record<string, unknown>, mediaType: string): string | undefined {
  return [mediaType, `${mediaType.split('/')[0]}/*`, '*/*'].find((key) => key in content);
}

/** The response key of `operation` that covers `status`: exact, `4XX`-style range, or `default`. */
function documentedStatus(operation: Operation, status: number): string | undefined {
  const responses = operation.responses ?? {};
  const range = `${String(status)[0]}XX`;
  return [String(status), range, 'default'].find((key) => key in responses);
}
