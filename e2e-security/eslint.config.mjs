import base from '../eslint.config.mjs';

export default [
  ...base,
  {
    // Attack tests read loosely-typed HTTP bodies and OpenAPI documents; `any` there is the honest type.
    files: ['**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
