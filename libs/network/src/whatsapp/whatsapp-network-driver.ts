import { SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
import { LRUCache } from 'lru-cache';
import { type InboundMediaFile, MediaDownloadError, type MediaDownloadLimits } from '../inbound-media-file';
import type { NetworkDriver, NetworkOpenOptions } from '../network-driver';
import type { NetworkSession } from '../network-session';
import type { SessionEvents } from '../session-events';
import { sessionRefKey, type SessionRef } from '../session-ref';
import { BoundedCache } from './bounded-cache';
import type { BaileysLogger } from './whatsapp-socket';
import { InboundInbox } from './inbound-inbox';
import { type InboundOutbox, ProcessInboundOutbox } from './inbound-outbox';
import type { InboundMediaArchive } from './inbound-media-archive';
import { type InboundMediaStore, ProcessInboundMediaStore } from './inbound-media-store';
import { LaunchQueue } from './launch-queue';
import { SessionMemory } from './session-memory';
import { parseWaVersion, WaVersionSource } from './wa-version-source';
import { SessionProxies, WHATSAPP_WEB_SOCKET_URL } from './session-proxies';
import type { StoredSessionStart } from './session-start-store';
import type { WhatsAppSession } from './whatsapp-session';
import { whatsAppSettings, type WhatsAppNetworkOptions, type WhatsAppSettings } from './whatsapp-settings';

type Runtime = typeof import('./whatsapp-runtime');

/** Sessions whose caches this worker keeps between connections (each entry is size-limited too). */
const MAX_REMEMBERED_SESSIONS = 10_000;
/** Signal keys cached per open session in front of PostgreSQL. */
const KEY_CACHE_ENTRIES = 1_000;
const KEY_CACHE_TTL_MS = 5 * 60 * 1000;
/**
 * One-time pre-keys skip that cache (Baileys keys it `${type}.${id}`): a first login writes 812 at
 * once (and more at each top-up), and each is read at most once, when a contact's first message
 * uses it. Cached, they held ~0.35 MiB per linked session for good (the LRU is bounded by count,
 * not expired) and crowded out the keys that are read on every message (sessions, sender keys).
 */
const isOneTimePreKey = (cacheKey: string) => cacheKey.startsWith('pre-key.');

/**
 * The real WhatsApp network, through Baileys 7 (CONTRACT §4–5). Credentials live in PostgreSQL
 * (any worker can take a session over), every credential write is fenced with the shard's token,
 * and Baileys itself is loaded only when the first session opens.
 */
export class WhatsAppNetworkDriver implements NetworkDriver {
  readonly name = 'whatsapp' as const;
  private readonly settings: WhatsAppSettings;
  private readonly cipher: SecretBox;
  private readonly launches: LaunchQueue;
  private readonly sessions = new Map<string, WhatsAppSession>();
  /** The open in progress per session: a second open waits for it, so one socket per session. */
  private readonly opening = new Map<string, Promise<unknown>>();
  private readonly memories = new LRUCache<string, SessionMemory>({ max: MAX_REMEMBERED_SESSIONS });
  private runtime: Promise<Runtime> | null = null;
  private readonly versions: WaVersionSource;
  private readonly inboundOutbox: InboundOutbox;
  private readonly inboundMedia: InboundMediaStore;
  private mediaArchive: InboundMediaArchive | null = null;
  /** Each session's own proxy, if it has one (docs/session-proxy.md). */
  private readonly proxies: SessionProxies;

  constructor(options: WhatsAppNetworkOptions) {
    this.settings = whatsAppSettings(options);
    this.cipher = new SecretBox(options.secretKey, SECRET_PURPOSES.networkCredentials);
    this.launches = new LaunchQueue(this.settings.connectSpacingMs);
    this.proxies = new SessionProxies({
      store: this.settings.sessionProxies,
      secretKey: options.secretKey,
      policy: { allowPrivateNetworks: this.settings.allowPrivateNetworks },
      webSocketUrl: this.settings.webSocketUrl ?? WHATSAPP_WEB_SOCKET_URL,
      probeTimeoutMs: this.settings.proxyProbeTimeoutMs,
    });
    this.inboundOutbox = this.settings.inboundOutbox ?? new ProcessInboundOutbox();
    this.inboundMedia = this.settings.inboundMedia ?? new ProcessInboundMediaStore();
    const pinned = this.settings.version === undefined ? undefined : parseWaVersion(this.settings.version);
    if (pinned === null) throw new Error(`not a WhatsApp Web version: ${this.settings.version}`);
    this.versions = new WaVersionSource(
      pinned,
      this.settings.fetchVersion ?? (async () => (await this.loadRuntime()).fetchWaVersion()),
      Date.now,
      this.settings.versionRefreshMinMs,
    );
  }

  /** Connections open in this driver right now. */
  get openSessions(): number {
    return this.sessions.size;
  }

  /**
   * Opens the session's connection. Opens of one session run one after another (registered before
   * any await), so two concurrent opens can never hold two sockets for one session; the later one
   * replaces the earlier, which steps back quietly and keeps the credentials.
   */
  open(ref: SessionRef, events: SessionEvents, options: NetworkOpenOptions): Promise<NetworkSession> {
    const { token } = options;
    if (token === undefined) {
      return Promise.reject(
        new Error('the WhatsApp driver needs the shard fencing token to store credentials'),
      );
    }
    const key = sessionRefKey(ref);
    const previous = this.opening.get(key) ?? Promise.resolve();
    const opened = previous
      .catch(() => undefined)
      .then(() => this.openNow(key, ref, events, { ...options, token }));
    this.opening.set(key, opened);
    const forget = () => {
      if (this.opening.get(key) === opened) this.opening.delete(key);
    };
    opened.then(forget, forget);
    return opened;
  }

  private async openNow(
    key: string,
    ref: SessionRef,
    events: SessionEvents,
    options: NetworkOpenOptions & { token: number },
  ): Promise<NetworkSession> {
    const { token, linked: expectLinked } = options;
    await this.sessions.get(key)?.close();
    const runtime = await this.loadRuntime();
    const start = await this.startOf(ref, runtime);
    // A session with its own proxy opens only once a tunnel through it works (else the start fails
    // naming the proxy); every log line of the session names it, masked.
    const proxy = await this.proxies.forConnection(ref, start.sealedProxy);
    const logger = this.settings.logger.child({
      accountId: ref.accountId,
      sessionId: ref.sessionId,
      network: 'whatsapp',
      ...(proxy ? { proxy: proxy.masked } : {}),
    });
    const baileysLogger = logger.child(
      { component: 'baileys' },
      { level: this.settings.baileysLogLevel },
    ) as BaileysLogger;
    let memory = this.memories.get(key);
    if (!memory) {
      memory = new SessionMemory();
      this.memories.set(key, memory);
    }

    let session: WhatsAppSession | null = null;
    const authOptions = {
      store: this.settings.credentials,
      ref: { ...ref },
      token,
      cipher: this.cipher,
      keyCache: new BoundedCache({
        max: KEY_CACHE_ENTRIES,
        ttlMs: KEY_CACHE_TTL_MS,
        passThrough: isOneTimePreKey,
      }),
      logger: baileysLogger,
      onFenced: () => {
        logger.warn('session taken over by another worker; closing here');
        void session?.close();
      },
    };
    // Linked or not is decided by the stored credentials, never by the caller's view of the state:
    // a hand-over between the scan and the first `connected`, or a start after a close that kept
    // the credentials (440, 403, ...), resumes the link instead of wiping it.
    const stored = runtime.PostgresAuthState.fromStored(authOptions, start);
    const auth = stored.linked || expectLinked ? stored : await runtime.PostgresAuthState.fresh(authOptions);

    const sent = new runtime.SentMessageArchive(
      { ...ref },
      memory,
      this.settings.sentMessages,
      this.cipher,
      logger,
    );
    session = new runtime.WhatsAppSession({
      ref: { ...ref },
      events,
      settings: this.settings,
      socketFactory: this.settings.socketFactory ?? runtime.baileysSocketFactory,
      auth,
      memory,
      sent,
      quotes: new runtime.QuoteArchive(
        { ...ref },
        memory,
        this.settings.receivedMessages,
        sent,
        this.cipher,
        logger,
      ),
      inbox: new InboundInbox({ ...ref }, this.inboundOutbox, this.cipher, memory, logger),
      media: this.archiveOf(runtime),
      logger,
      baileysLogger,
      schedule: (start) => this.launches.schedule(start),
      stillOwned: options.stillOwned ?? (() => true),
      versions: this.versions,
      proxy,
      onEnded: (ended) => {
        if (this.sessions.get(key) === ended) this.sessions.delete(key);
        void proxy?.close();
      },
    });
    this.sessions.set(key, session);
    if (!auth.linked && !expectLinked) session.beginLogin();
    else if (!auth.linked) {
      logger.warn('no stored WhatsApp credentials for a linked session; it must be linked again');
      session.failImmediately('logged_out');
    } else session.beginReconnect();
    return session;
  }

  /**
   * The file of a media message a session received, from WhatsApp's media servers (decrypted with
   * the descriptor kept when it arrived). Needs no open connection: only the descriptor.
   */
  async downloadMedia(
    ref: SessionRef,
    messageId: string,
    limits: MediaDownloadLimits,
  ): Promise<InboundMediaFile> {
    const runtime = await this.loadRuntime();
    const archived = await this.archiveOf(runtime).open(ref, messageId);
    // The file is fetched on the session's behalf: through its own proxy when it has one.
    const proxy = await this.proxies.agentsOf(ref).catch((error: Error) => {
      throw new MediaDownloadError('media_download_failed', `${error.message}.`);
    });
    const settings = {
      host: this.settings.mediaHost,
      timeoutMs: this.settings.mediaTimeoutMs,
      ...(proxy ? { dispatcher: proxy.dispatcher } : {}),
    };
    // An expired CDN copy is asked of the phone again, through the session if it is open here.
    const reupload = this.sessions.get(sessionRefKey(ref))?.mediaReupload() ?? null;
    try {
      const file = await runtime.downloadWithReupload(
        archived,
        (descriptor) => runtime.downloadInboundMedia(descriptor, limits, settings),
        reupload,
        settings.timeoutMs,
      );
      if (proxy) file.data.once('close', () => void proxy.close());
      return file;
    } catch (error) {
      await proxy?.close();
      throw error;
    }
  }

  /**
   * What the open reads before it connects: the session's proxy, creds and key index, in one
   * statement when the store can (a restore opens all of a worker's sessions at once).
   */
  private async startOf(ref: SessionRef, runtime: Runtime): Promise<StoredSessionStart> {
    const { creds, exceptKinds, limit } = runtime.STORED_START;
    if (this.settings.sessionStart) return this.settings.sessionStart.startOf(ref, creds, exceptKinds, limit);
    const { credentials, sessionProxies } = this.settings;
    const [sealedProxy, stored, storedKeys] = await Promise.all([
      sessionProxies?.sealedProxyOf(ref) ?? null,
      credentials.read(ref, creds.kind, [creds.keyId]),
      credentials.storedKeys?.(ref, exceptKinds, limit) ?? null,
    ]);
    return { sealedProxy, creds: stored.get(creds.keyId) ?? null, storedKeys };
  }

  private archiveOf(runtime: Runtime): InboundMediaArchive {
    this.mediaArchive ??= new runtime.InboundMediaArchive(
      this.inboundMedia,
      this.cipher,
      this.settings.logger,
    );
    return this.mediaArchive;
  }

  private loadRuntime(): Promise<Runtime> {
    this.runtime ??= import('./whatsapp-runtime').catch((error: unknown) => {
      this.runtime = null;
      throw error;
    });
    return this.runtime;
  }
}
