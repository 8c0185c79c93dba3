import root from '../../eslint.config.mjs';

export default [
  ...root,
  { ignores: ['vite.config.mts'] },
  {
    // A browser bundle that talks to the gateway only over its public HTTP API: no server code.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // The typed client's types are the API's own (generated from its OpenAPI document).
              group: ['@jumbe/*', '!@jumbe/client'],
              message: 'The dashboard uses only the public HTTP API (src/api.ts) and its typed client.',
            },
            { group: ['node:*'], message: 'The dashboard runs in the browser.' },
          ],
        },
      ],
    },
  },
];
