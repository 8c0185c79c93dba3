import base from '../../eslint.config.mjs';

export default [
  ...base,
  // Generated from the OpenAPI document by tools/openapi-client.mjs.
  { ignores: ['src/generated/**', 'dist/**'] },
];
