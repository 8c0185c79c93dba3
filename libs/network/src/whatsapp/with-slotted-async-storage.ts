import { syncBuiltinESMExports } from 'node:module';
import { SlottedAsyncLocalStorage } from './slotted-async-local-storage';

/**
 * Runs `build` (synchronous) with `node:async_hooks`' AsyncLocalStorage replaced by
 * SlottedAsyncLocalStorage, then puts the real one back: what `build` constructs gets slotted
 * storages, nothing else in the process is touched. Used around Baileys' `makeWASocket`, which
 * makes its transaction storage synchronously (see SlottedAsyncLocalStorage for why). Baileys
 * imports the class as an ES module binding, which `syncBuiltinESMExports` updates both ways.
 */
export function withSlottedAsyncStorage<T>(build: () => T): T {
  const asyncHooks = process.getBuiltinModule('node:async_hooks');
  const real = asyncHooks.AsyncLocalStorage;
  asyncHooks.AsyncLocalStorage = SlottedAsyncLocalStorage;
  syncBuiltinESMExports();
  try {
    return build();
  } finally {
    asyncHooks.AsyncLocalStorage = real;
    syncBuiltinESMExports();
  }
}
