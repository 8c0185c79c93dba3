// What the typed client package (packages/client) is generated from the OpenAPI document: its
// TypeScript types (openapi-typescript) and a Postman collection (v2.1, converted here). Pure: the
// caller passes the document; tools/openapi-client.mjs writes the files, and a gateway spec
// (libs/gateway/src/openapi/client-artifacts.spec.ts) fails when the committed ones drift from it.
const { join } = require('node:path');

const root = join(__dirname, '..');

/** Where each artifact lives, relative to the repository root. */
const ARTIFACT_PATHS = {
  types: 'packages/client/src/generated/jumbe-api.ts',
  postman: 'packages/client/jumbe.postman_collection.json',
};

const TYPES_HEADER = `// Generated from Jumbe's OpenAPI document (libs/gateway/src/openapi) by tools/openapi-client.mjs,
// which \`node tools/build.mjs\` runs. Do not edit: change a route's description (libs/gateway/src/<feature>/<feature>.routes.ts) and rebuild.
/* eslint-disable */
`;

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every generated file: repository-relative path → content, formatted as the repository's prettier does. */
async function clientArtifacts(document) {
  // Loaded here, not on top: openapi-typescript needs ES modules that Jest's require cannot load,
  // and the Postman conversion alone does not need it.
  const { default: openapiTS, astToString } = require('openapi-typescript');
  const types = TYPES_HEADER + astToString(await openapiTS(structuredClone(document)));
  const postman = JSON.stringify(postmanCollection(document), null, 2);
  return {
    [ARTIFACT_PATHS.types]: await format(types, ARTIFACT_PATHS.types),
    [ARTIFACT_PATHS.postman]: await format(postman, ARTIFACT_PATHS.postman),
  };
}

async function format(text, path) {
  const prettier = require('prettier');
  const filepath = join(root, path);
  const options = (await prettier.resolveConfig(filepath)) ?? {};
  return prettier.format(text, { ...options, filepath });
}

/** A Postman collection (v2.1) with one request per operation, in folders by tag. */
function postmanCollection(document) {
  const folders = new Map();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'Other';
      if (!folders.has(tag)) folders.set(tag, []);
      folders.get(tag).push(postmanRequest(path, method, operation));
    }
  }
  return {
    info: {
      name: document.info.title,
      description: `${document.info.description}\n\nSet the collection variables \`baseUrl\`, \`apiKey\` (customer routes) and \`adminToken\` (admin routes). Generated from the OpenAPI document at /api/v1/openapi.json.`,
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    auth: {
      type: 'apikey',
      apikey: [
        { key: 'key', value: 'x-api-key', type: 'string' },
        { key: 'value', value: '{{apiKey}}', type: 'string' },
        { key: 'in', value: 'header', type: 'string' },
      ],
    },
    variable: [
      { key: 'baseUrl', value: 'http://localhost:8080' },
      { key: 'apiKey', value: '' },
      { key: 'adminToken', value: '' },
    ],
    item: [...folders].map(([name, item]) => ({ name, item })),
  };
}

function postmanRequest(path, method, operation) {
  const parameters = operation.parameters ?? [];
  const query = parameters
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) => ({
      key: parameter.name,
      value: exampleText(parameter.schema),
      ...(parameter.required ? {} : { disabled: true }),
      ...(parameter.schema?.description ? { description: parameter.schema.description } : {}),
    }));
  const segments = path
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/^\{(.+)\}$/, ':$1'));
  const enabledQuery = query.filter((entry) => !entry.disabled);
  const queryText = enabledQuery.length
    ? `?${enabledQuery.map((entry) => `${entry.key}=${entry.value}`).join('&')}`
    : '';
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  return {
    name: operation.summary ?? `${method.toUpperCase()} ${path}`,
    request: {
      method: method.toUpperCase(),
      ...postmanAuth(operation.security),
      header: bodySchema ? [{ key: 'Content-Type', value: 'application/json' }] : [],
      url: {
        raw: `{{baseUrl}}/${segments.join('/')}${queryText}`,
        host: ['{{baseUrl}}'],
        path: segments,
        ...(query.length ? { query } : {}),
        ...(parameters.some((parameter) => parameter.in === 'path')
          ? {
              variable: parameters
                .filter((parameter) => parameter.in === 'path')
                .map((parameter) => ({ key: parameter.name, value: '' })),
            }
          : {}),
      },
      ...(bodySchema
        ? {
            body: {
              mode: 'raw',
              raw: JSON.stringify(example(bodySchema), null, 2),
              options: { raw: { language: 'json' } },
            },
          }
        : {}),
    },
  };
}

/** Customer routes inherit the collection's API key; admin routes use the admin token; open routes none. */
function postmanAuth(security) {
  if (!security || security.length === 0) return { auth: { type: 'noauth' } };
  if (security.some((scheme) => 'apiKeyHeader' in scheme)) return {};
  return { auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{adminToken}}', type: 'string' }] } };
}

/** A value of `schema` to start from: its default, first example, const or enum value, else a blank of its type. */
function example(schema) {
  if (!schema || typeof schema !== 'object') return null;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const variant = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (variant) return example(variant);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = schema.properties ?? {};
      const required = schema.required ?? [];
      // Required fields only, so the body is valid as it stands; all of them when none is required.
      const names = required.length ? required : Object.keys(properties);
      return Object.fromEntries(names.map((name) => [name, example(properties[name])]));
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    case 'string':
      return '';
    default:
      return null;
  }
}

function exampleText(schema) {
  const value = example(schema);
  return value === null || value === undefined ? '' : String(value);
}

module.exports = { ARTIFACT_PATHS, clientArtifacts, postmanCollection };
