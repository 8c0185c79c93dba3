import type { Readable } from 'node:stream';
import type { HostResolver } from '@jumbe/egress';
import type { Logger } from 'pino';
import type { CredentialStore } from './credential-store';
import type { InboundMediaStore } from './inbound-media-store';
import type { InboundOutbox } from './inbound-outbox';
import { MediaByteBudget } from './media-byte-budget';
import type { ReceivedMessageStore } from './received-message-store';
import type { SentMessageStore } from './sent-message-store';
import type { SessionProxyStore } from './session-proxy-store';
import type { SessionStartStore } from './session-start-store';
import type { WaVersionFetcher } from './wa-version-source';
import type { WhatsAppSocketFactory } from './whatsapp-socket';

/** Where the worker reads uploaded files from (the uploads store; MediaObjectStore of @jumbe/messaging). */
export interface UploadedFiles {
  open(name: string): Promise<{ data: Readable } | null>;
}

export interface WhatsAppNetworkOptions {
  /** Where credentials live (NetworkCredentialStore of @jumbe/persistence). */
  credentials: CredentialStore;
  /** Where sent messages live for retry requests (SentMessageRepository); memory only without it. */
  sentMessages?: SentMessageStore;
  /** Where received messages wait for the event stream (InboundOutboxRepository); this process only without it. */
  inboundOutbox?: InboundOutbox;
  /** Where replies find the received messages they quote (ReceivedMessageRepository); memory only without it. */
  receivedMessages?: ReceivedMessageStore;
  /** Where received media messages' download descriptors live (InboundMediaRepository); this process only without it. */
  inboundMedia?: InboundMediaStore;
  /**
   * Files customers uploaded to send (a media message with `upload` instead of `url`), which the
   * gateway put in the uploads store; without it such a send fails `media_fetch_failed`.
   */
  uploads?: UploadedFiles;
  /**
   * Tests only, never read from configuration: the host received media is downloaded from instead
   * of WhatsApp's `mmg.whatsapp.net` (still HTTPS, certificates still checked).
   */
  mediaHost?: string;
  /**
   * Where sessions' own proxies are kept (CONTRACT §11, docs/session-proxy.md); without it every
   * session connects directly.
   */
  sessionProxies?: SessionProxyStore;
  /**
   * Reads a session's proxy, creds and key index in one round trip when it opens
   * (SessionStartRepository); without it they are read from `sessionProxies` and `credentials`.
   */
  sessionStart?: SessionStartStore;
  /** How long opening a session waits for a tunnel through its proxy before failing; default 10 s. */
  proxyProbeTimeoutMs?: number;
  /** JUMBE_SECRET_KEY: credentials are encrypted at rest with a key derived from it. */
  secretKey: string;
  /** The service logger; each session logs through a child with its account and session id. */
  logger: Logger;
  /** Makes the Baileys socket; tests inject a fake. Defaults to Baileys' makeWASocket. */
  socketFactory?: WhatsAppSocketFactory;
  /** Baileys' own log level (bridged into the service logger); default `warn`. */
  baileysLogLevel?: string;
  /** JUMBE_ALLOW_PRIVATE_NETWORKS: media URLs may reach private addresses. */
  allowPrivateNetworks?: boolean;
  /** Largest media file a send downloads (received files have their own cap, the caller's); default 64 MiB. */
  mediaMaxBytes?: number;
  /** Deadline of one media download; default 60 s. */
  mediaTimeoutMs?: number;
  /**
   * Bytes of outbound media this driver (the worker) holds at once over all sessions: each send
   * reserves `mediaMaxBytes` before its download and keeps the file's size until it is sent.
   * Default 256 MiB (four sends of the largest file, many more of usual ones).
   */
  mediaBytesInFlight?: number;
  /** How long a media send waits for room in that budget before it fails `media_busy`; default 10 s. */
  mediaBudgetWaitMs?: number;
  /** DNS for media URLs (tests pass a fake); defaults to the system resolver. */
  mediaResolver?: HostResolver;
  /** How long a login (QR or pairing code) may wait to be completed; default 3 minutes. */
  loginTimeoutMs?: number;
  /**
   * The whole time a pairing-code request may take (waiting for WhatsApp, then asking it);
   * keep it below the gateway's command timeout. Default 10 s.
   */
  pairingCodeWaitMs?: number;
  /** Reconnect backoff: first ceiling and cap; defaults 1 s and 60 s. */
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  /** Minimum gap between two new sockets of this driver (staggered restores); default 100 ms. */
  connectSpacingMs?: number;
  /** How often an inbound message the worker failed to record is offered again; default 1 s. */
  redeliveryIntervalMs?: number;
  /** Deadline of one send; default 60 s. */
  sendTimeoutMs?: number;
  /** Injectable randomness (backoff jitter) for tests. */
  random?: () => number;
  /** JUMBE_WHATSAPP_VERSION (`2.3000.N`): the client version to announce, never fetched. */
  version?: string;
  /** JUMBE_WHATSAPP_URL: WhatsApp Web's WebSocket address; default Baileys' (WhatsApp's own). */
  webSocketUrl?: string;
  /** Finds WhatsApp's current client version; defaults to Baileys' fetchLatestWaWebVersion. */
  fetchVersion?: WaVersionFetcher;
  /**
   * Refusal closes (402, 405, 406, 500, unknown stream errors) in a row before a session ends with
   * their reason; default: never (they are retried with the refusal backoff).
   */
  maxRefusals?: number;
  /** Backoff after a refusal (405, 500, 503, unknown stream errors): first ceiling and cap; defaults 5 s and 40 s. */
  refusalBackoffBaseMs?: number;
  refusalBackoffMaxMs?: number;
  /** A connection open this long is stable: the next restart request (515) reconnects at once; default 30 s. */
  stableConnectionMs?: number;
  /** Least time between two fetches of WhatsApp Web's version after 405s (all sessions); default 60 s. */
  versionRefreshMinMs?: number;
  /**
   * Called once per received message the device could not decrypt (a metric's hook: the worker
   * counts them in `jumbe_inbound_undecryptable_total`); such messages are logged and not delivered.
   */
  onUndecryptable?: () => void;
  /**
   * Tests only: Baileys' keep-alive ping interval (it gives up on a connection silent for this plus
   * 5 s). Default: Baileys' own (30 s).
   */
  keepAliveIntervalMs?: number;
  /** How long a logout of a session between sockets tries to connect to unlink the device; default 15 s. */
  logoutUnlinkWaitMs?: number;
  /**
   * Baileys' event buffer found holding at two checks this far apart is flushed (EventBufferDrain;
   * a received message is flushed at once); 0 turns both off (a socket's end still drains: tests
   * of Baileys' own buffering). Default 1 s.
   */
  eventBufferFlushMs?: number;
}

const DEFAULT_MEDIA_BYTES_IN_FLIGHT = 256 * 1024 * 1024;

/**
 * The refusal backoff's cap. A wait is drawn from the upper half of the ceiling, so a number is
 * back at most this long after a WhatsApp incident ends; 5 minutes kept numbers offline for up to
 * 5 minutes after a storm of two. During an incident a worker of 1,000 sessions tries 25–50
 * logins a second, each a refused handshake.
 */
export const DEFAULT_REFUSAL_BACKOFF_MAX_MS = 40_000;

/** Where WhatsApp serves media files (Baileys' DEF_MEDIA_HOST). */
const WHATSAPP_MEDIA_HOST = 'mmg.whatsapp.net';

type OptionalSettings =
  | 'socketFactory'
  | 'mediaResolver'
  | 'version'
  | 'fetchVersion'
  | 'sentMessages'
  | 'inboundOutbox'
  | 'receivedMessages'
  | 'inboundMedia'
  | 'uploads'
  | 'sessionProxies'
  | 'sessionStart'
  | 'webSocketUrl'
  | 'onUndecryptable'
  | 'keepAliveIntervalMs';

export type WhatsAppSettings = Required<Omit<WhatsAppNetworkOptions, OptionalSettings>> &
  Pick<WhatsAppNetworkOptions, OptionalSettings> & {
    /** The worker-wide budget of outbound media bytes (`mediaBytesInFlight`), one per driver. */
    mediaBudget: MediaByteBudget;
  };

export function whatsAppSettings(options: WhatsAppNetworkOptions): WhatsAppSettings {
  return {
    ...options,
    baileysLogLevel: options.baileysLogLevel ?? 'warn',
    allowPrivateNetworks: options.allowPrivateNetworks ?? false,
    mediaMaxBytes: options.mediaMaxBytes ?? 64 * 1024 * 1024,
    mediaTimeoutMs: options.mediaTimeoutMs ?? 60_000,
    mediaBytesInFlight: options.mediaBytesInFlight ?? DEFAULT_MEDIA_BYTES_IN_FLIGHT,
    mediaBudgetWaitMs: options.mediaBudgetWaitMs ?? 10_000,
    mediaBudget: new MediaByteBudget(options.mediaBytesInFlight ?? DEFAULT_MEDIA_BYTES_IN_FLIGHT),
    mediaHost: options.mediaHost ?? WHATSAPP_MEDIA_HOST,
    loginTimeoutMs: options.loginTimeoutMs ?? 180_000,
    pairingCodeWaitMs: options.pairingCodeWaitMs ?? 10_000,
    reconnectBaseMs: options.reconnectBaseMs ?? 1_000,
    reconnectMaxMs: options.reconnectMaxMs ?? 60_000,
    connectSpacingMs: options.connectSpacingMs ?? 100,
    redeliveryIntervalMs: options.redeliveryIntervalMs ?? 1_000,
    sendTimeoutMs: options.sendTimeoutMs ?? 60_000,
    random: options.random ?? Math.random,
    maxRefusals: options.maxRefusals ?? Number.POSITIVE_INFINITY,
    refusalBackoffBaseMs: options.refusalBackoffBaseMs ?? 5_000,
    refusalBackoffMaxMs: options.refusalBackoffMaxMs ?? DEFAULT_REFUSAL_BACKOFF_MAX_MS,
    stableConnectionMs: options.stableConnectionMs ?? 30_000,
    versionRefreshMinMs: options.versionRefreshMinMs ?? 60_000,
    logoutUnlinkWaitMs: options.logoutUnlinkWaitMs ?? 15_000,
    eventBufferFlushMs: options.eventBufferFlushMs ?? 1_000,
    proxyProbeTimeoutMs: options.proxyProbeTimeoutMs ?? 10_000,
  };
}
