import root, { boundaries } from '../../eslint.config.mjs';

export default [
  ...root,
  { ignores: ['vite.config.mts'] },
  {
    // A browser bundle that talks to the gateway only over its public HTTP API: no server code.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: {
      // The root lints boundaries in .ts files; the components are .tsx. Scope `scope:dashboard`
      // allows the shared libs, and of those only the published packages (the typed client).
      '@nx/enforce-module-boundaries': boundaries(false, [
        { sourceTag: 'scope:dashboard', onlyDependOnLibsWithTags: ['type:package'] },
      ]),
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
      // Types only from the client: the dashboard's calls go through src/api.ts (its own fetch).
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@jumbe/client'],
              allowTypeImports: true,
              message:
                'The dashboard takes only types from @jumbe/client; it calls the API through src/api.ts.',
            },
          ],
        },
      ],
    },
  },
];
