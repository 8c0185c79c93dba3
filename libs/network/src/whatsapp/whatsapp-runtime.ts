// Loaded on the first `open` only (see WhatsAppNetworkDriver): everything that needs Baileys at
// run time is reached from here, so processes on the sandbox network never load the library.
import { fetchLatestWaWebVersion, makeWASocket } from '@whiskeysockets/baileys';
import { LRUCache } from 'lru-cache';
import { requireValidSignatures } from './strict-signatures';
import { withSlottedAsyncStorage } from './with-slotted-async-storage';
import type { WaVersion } from './wa-version-source';
import type { WhatsAppSocketFactory } from './whatsapp-socket';

export { PostgresAuthState, STORED_START } from './postgres-auth-state';
export { SentMessageArchive } from './sent-message-archive';
export { QuoteArchive } from './quote-archive';
export { InboundMediaArchive } from './inbound-media-archive';
export { downloadInboundMedia } from './inbound-media-download';
export { downloadWithReupload } from './inbound-media-reupload';
export { WhatsAppSession } from './whatsapp-session';

/** LID ↔ phone-number mappings kept in memory per session (the rest are read from PostgreSQL). */
export const LID_MAPPING_CACHE_ENTRIES = 5_000;

/**
 * The real socket: Baileys' makeWASocket with the options the session chose, its per-socket
 * transaction storage made slotted (SlottedAsyncLocalStorage says why).
 */
export const baileysSocketFactory: WhatsAppSocketFactory = (config) => {
  requireValidSignatures();
  const socket = withSlottedAsyncStorage(() => makeWASocket(config));
  boundLidMappingCache(socket.signalRepository.lidMapping);
  return socket;
};

/** How long the worker waits for web.whatsapp.com to tell the current client version. */
const VERSION_FETCH_TIMEOUT_MS = 5_000;

/** WhatsApp Web's current client version, or null offline (Baileys' pinned one is used then). */
export async function fetchWaVersion(): Promise<WaVersion | null> {
  const found = await fetchLatestWaWebVersion({ signal: AbortSignal.timeout(VERSION_FETCH_TIMEOUT_MS) });
  return found.isLatest ? (found.version as WaVersion) : null;
}

/**
 * Baileys' LID mapping store caches every mapping it ever saw for three days with no size limit,
 * and takes no cache option. Its entries are only a cache of the `lid-mapping` keys in the
 * credential store, so swapping in an LRU with the same expiry and a size cap loses nothing.
 */
export function boundLidMappingCache(lidMapping: object): void {
  const holder = lidMapping as { mappingCache?: unknown };
  const current = holder.mappingCache;
  if (!(current instanceof LRUCache) || current.max > 0) return;
  holder.mappingCache = new LRUCache<string, string>({
    max: LID_MAPPING_CACHE_ENTRIES,
    ttl: current.ttl || 3 * 24 * 60 * 60 * 1000,
    ttlAutopurge: true,
    updateAgeOnGet: true,
  });
}
