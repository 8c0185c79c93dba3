import {
  Browsers,
  type GroupMetadata,
  isJidStatusBroadcast,
  proto,
  type UserFacingSocketConfig,
} from '@whiskeysockets/baileys';
import { durableEncryptions } from './durable-encryptions';
import { NodeCarryingResends } from './node-carrying-resends';
import { proxySocketOptions } from './proxy-agents';
import type { WhatsAppSessionContext } from './whatsapp-session-context';
import type { WhatsAppSocket } from './whatsapp-socket';

/** What a socket's options read of the session's connection while the socket lives. */
export interface SocketConfigConnection {
  /** The session's socket now (a group-metadata miss asks its server). */
  currentSocket(): WhatsAppSocket | null;
  /** NodeCarryingResends answers retry receipts of interactive messages on the current socket. */
  resendsCarryNodes(): boolean;
}

type SocketConfigContext = Pick<
  WhatsAppSessionContext,
  'auth' | 'memory' | 'sent' | 'settings' | 'baileysLogger' | 'proxy'
>;

/** The options Baileys gets for each socket of a session. */
export function socketConfigOf(
  context: SocketConfigContext,
  connection: SocketConfigConnection,
): UserFacingSocketConfig {
  const { memory, auth } = context;
  return {
    auth: auth.state,
    // A send's Signal state is stored before its stanza leaves (Baileys commits it after); a
    // stanza delivered again after its receipt failed is decrypted from memory.
    makeSignalRepository: memory.decrypted.repository(durableEncryptions(auth)),
    logger: context.baileysLogger,
    browser: Browsers.ubuntu('Chrome'),
    ...(context.settings.webSocketUrl ? { waWebSocketUrl: context.settings.webSocketUrl } : {}),
    ...(context.settings.keepAliveIntervalMs
      ? { keepAliveIntervalMs: context.settings.keepAliveIntervalMs }
      : {}),
    ...(context.proxy ? proxySocketOptions(context.proxy) : {}),
    // A server, not a phone: no full history, not shown online, no link previews. The small
    // initial syncs stay on: they carry the LID ↔ phone-number mappings Baileys needs.
    syncFullHistory: false,
    shouldSyncHistoryMessage: ({ syncType }) => !SKIPPED_HISTORY.has(syncType ?? -1),
    markOnlineOnConnect: false,
    emitOwnEvents: false,
    generateHighQualityLinkPreview: false,
    // Status updates are dropped anyway: never spend a decryption (and a retry) on them.
    shouldIgnoreJid: (jid) => isJidStatusBroadcast(jid),
    // Without it, every group send asks the server for the group's participants first.
    cachedGroupMetadata: (jid) => groupMetadata(context, connection, jid),
    // Serves a recipient's retry request for a message this session sent.
    // An interactive message is resent by NodeCarryingResends (with its <biz> node), never by Baileys.
    getMessage: async (key) => {
      const message = key.id ? await context.sent.find(key.id) : undefined;
      return connection.resendsCarryNodes() && NodeCarryingResends.handles(message) ? undefined : message;
    },
    msgRetryCounterCache: memory.retryCounters,
    userDevicesCache: memory.userDevices,
    placeholderResendCache: memory.placeholderResends,
    callOfferCache: memory.callOffers,
  };
}

/**
 * A group's metadata from the session's cache (SessionConnection fills it from what the server
 * announces), else from one lookup of ours that later sends reuse.
 */
async function groupMetadata(
  context: SocketConfigContext,
  connection: SocketConfigConnection,
  jid: string,
): Promise<GroupMetadata | undefined> {
  const { groups } = context.memory;
  const cached = groups.get<GroupMetadata>(jid);
  const socket = connection.currentSocket();
  if (cached || !socket) return cached;
  try {
    const fetched = await socket.groupMetadata(jid);
    groups.set(jid, fetched);
    return fetched;
  } catch {
    return undefined; // Baileys asks the server itself and reports its own error.
  }
}

/** History the phone would upload that a gateway never needs. */
const SKIPPED_HISTORY = new Set<number>([
  proto.HistorySync.HistorySyncType.FULL,
  proto.HistorySync.HistorySyncType.ON_DEMAND,
]);
