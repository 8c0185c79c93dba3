import base from '../../eslint.config.mjs';

export default [
  ...base,
  {
    // Published as its own package with no dependencies: its sources import node:crypto and each
    // other, nothing else (no @jumbe/* lib, no npm package). Tests may cross-check against @jumbe/domain.
    files: ['**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!node:crypto$|\\./)',
              message: '@jumbe/webhook-receiver stands alone: import only node:crypto and its own files.',
            },
          ],
        },
      ],
    },
  },
];
