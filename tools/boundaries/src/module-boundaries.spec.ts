import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// The module boundaries of eslint.config.mjs, proven on imports placed in the libraries they
// would break: each forbidden import fails lint with the rule that guards it; allowed ones pass.

interface Fixture {
  file: string;
  code: string;
}
interface LintError {
  ruleId: string | null;
  message: string;
}

const workspaceRoot = join(__dirname, '../../..');
const boundaryRule = '@nx/enforce-module-boundaries';
const importRule = 'no-restricted-imports';

/** A file that imports `specifier` and uses it, so that no other rule has anything to say. */
function importing(file: string, specifier: string): Fixture {
  return { file, code: `import * as imported from '${specifier}';\n\nexport const uses = imported;\n` };
}

const forbidden: Array<[string, Fixture, string, string]> = [
  [
    'a service lib importing another service lib',
    importing('libs/gateway/src/boundary-fixture.ts', '@jumbe/session-worker'),
    boundaryRule,
    'tagged with "type:service" can only depend on',
  ],
  [
    'the gateway importing the network lib (the session worker owns it)',
    importing('libs/gateway/src/boundary-fixture.ts', '@jumbe/network'),
    boundaryRule,
    'tagged with "scope:gateway" can only depend on',
  ],
  [
    'the webhook dispatcher importing the network lib',
    importing('libs/webhook-dispatcher/src/boundary-fixture.ts', '@jumbe/network'),
    boundaryRule,
    'tagged with "scope:webhook-dispatcher" can only depend on',
  ],
  [
    "the gateway's process importing the network lib",
    importing('apps/gateway/src/boundary-fixture.ts', '@jumbe/network'),
    boundaryRule,
    'tagged with "scope:gateway" can only depend on',
  ],
  [
    'the process shell importing the network lib (it would carry it into every service)',
    importing('libs/platform/src/boundary-fixture.ts', '@jumbe/network'),
    boundaryRule,
    'tagged with "scope:shared" can only depend on',
  ],
  [
    // (Not an adapter importing a service: that closes a cycle, which the rule reports first.)
    'an adapter reading the configuration (it is handed its settings)',
    importing('libs/coordination/src/boundary-fixture.ts', '@jumbe/config'),
    boundaryRule,
    'tagged with "type:adapter" can only depend on',
  ],
  [
    // The operator's service declares its ports; the composition roots bind them to repositories.
    'a use-case importing an adapter',
    importing('libs/operator/src/boundary-fixture.ts', '@jumbe/persistence'),
    boundaryRule,
    'tagged with "type:use-case" can only depend on',
  ],
  [
    'the domain importing a Node I/O module',
    importing('libs/domain/src/boundary-fixture.ts', 'node:fs'),
    importRule,
    'no Node I/O module',
  ],
  [
    'the domain importing an I/O library',
    importing('libs/domain/src/boundary-fixture.ts', 'typeorm'),
    boundaryRule,
    'tagged with "type:domain" is not allowed to import "typeorm"',
  ],
  [
    'a service importing the end-to-end test support lib',
    importing('libs/session-worker/src/boundary-fixture.ts', '@jumbe/testing'),
    boundaryRule,
    'tagged with "type:service" can only depend on',
  ],
  [
    "a service importing a lib's test support",
    importing('libs/session-worker/src/boundary-fixture.ts', '@jumbe/network/testing'),
    importRule,
    'Test support is for tests',
  ],
  [
    'production code importing a test-support folder',
    importing('libs/gateway/src/boundary-fixture.ts', './test-support/fixtures'),
    importRule,
    'Test support is for tests',
  ],
  [
    'the gateway importing Baileys',
    importing('libs/gateway/src/boundary-fixture.ts', '@whiskeysockets/baileys'),
    importRule,
    'Only libs/network/src/whatsapp imports Baileys',
  ],
  [
    'the dashboard taking a value (not a type) from the typed client',
    importing('apps/dashboard/src/boundary-fixture.tsx', '@jumbe/client'),
    '@typescript-eslint/no-restricted-imports',
    'only types from @jumbe/client',
  ],
  [
    // The boundary rule covers the dashboard's .tsx components, not only its .ts files.
    "a dashboard component reaching into a lib's files",
    importing('apps/dashboard/src/boundary-fixture.tsx', '../../../libs/contracts/src/index'),
    boundaryRule,
    'cannot be imported by a relative or absolute path',
  ],
];

const allowed: Array<[string, Fixture]> = [
  [
    'the session worker importing the network lib it owns',
    importing('libs/session-worker/src/f.ts', '@jumbe/network'),
  ],
  ['the gateway importing a shared adapter', importing('libs/gateway/src/f.ts', '@jumbe/persistence')],
  [
    'a service test importing test support',
    importing('libs/session-worker/src/f.spec.ts', '@jumbe/network/testing'),
  ],
  [
    'a lib test importing the end-to-end test support lib',
    importing('libs/gateway/src/f.spec.ts', '@jumbe/testing'),
  ],
  [
    "a use-case's test binding its ports to the real adapters",
    importing('libs/operator/src/f.spec.ts', '@jumbe/persistence'),
  ],
  [
    'the WhatsApp driver importing Baileys',
    importing('libs/network/src/whatsapp/f.ts', '@whiskeysockets/baileys'),
  ],
  [
    'the all-in-one launcher importing services',
    importing('apps/all-in-one/src/f.ts', '@jumbe/session-worker'),
  ],
  [
    "the worker's process importing the network lib",
    importing('apps/session-worker/src/f.ts', '@jumbe/network'),
  ],
  [
    "the dashboard taking the typed client's types",
    {
      file: 'apps/dashboard/src/f.tsx',
      code: "import type { Session } from '@jumbe/client';\n\nexport type Uses = Session;\n",
    },
  ],
];

let errorsByCase: LintError[][];

beforeAll(() => {
  const fixtures = [...forbidden.map(([, fixture]) => fixture), ...allowed.map(([, fixture]) => fixture)];
  const output = execFileSync(process.execPath, [join(__dirname, 'lint-as-project-files.mjs')], {
    cwd: workspaceRoot,
    input: JSON.stringify(fixtures),
    encoding: 'utf8',
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    maxBuffer: 16 * 1024 * 1024,
  });
  errorsByCase = (JSON.parse(output) as Array<{ errors: LintError[] }>).map(({ errors }) => errors);
}, 180_000);

describe('module boundaries', () => {
  it.each(forbidden.map(([name, , ruleId, says], index) => [name, index, ruleId, says] as const))(
    'refuse %s',
    (_name, index, ruleId, says) => {
      expect(errorsByCase[index]).toEqual([{ ruleId, message: expect.stringContaining(says) }]);
    },
  );

  it.each(allowed.map(([name], index) => [name, forbidden.length + index] as const))(
    'allow %s',
    (_name, index) => {
      expect(errorsByCase[index]).toEqual([]);
    },
  );
});
