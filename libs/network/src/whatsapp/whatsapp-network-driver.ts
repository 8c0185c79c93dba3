import { SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
import { LRUCache } from 'lru-cache';
import type { NetworkDriver } from '../network-driver';
import type { NetworkSession } from '../network-session';
import type { SessionEvents } from '../session-events';
import { sessionRefKey, type SessionRef } from '../session-ref';
import { BoundedCache } from './bounded-cache';
import type { BaileysLogger } from './whatsapp-socket';
import { LaunchQueue } from './launch-queue';
import { SessionMemory } from './session-memory';
import type { WhatsAppSession } from './whatsapp-session';
import { whatsAppSettings, type WhatsAppNetworkOptions, type WhatsAppSettings } from './whatsapp-settings';

type Runtime = typeof import('./whatsapp-runtime');

/** Sessions whose caches this worker keeps between connections (each entry is size-limited too). */
const MAX_REMEMBERED_SESSIONS = 10_000;
/** Signal keys cached per open session in front of PostgreSQL. */
const KEY_CACHE_ENTRIES = 1_000;
const KEY_CACHE_TTL_MS = 5 * 60 * 1000;

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
  private readonly memories = new LRUCache<string, SessionMemory>({ max: MAX_REMEMBERED_SESSIONS });
  private runtime: Promise<Runtime> | null = null;

  constructor(options: WhatsAppNetworkOptions) {
    this.settings = whatsAppSettings(options);
    this.cipher = new SecretBox(options.secretKey, SECRET_PURPOSES.networkCredentials);
    this.launches = new LaunchQueue(this.settings.connectSpacingMs);
  }

  /** Connections open in this driver right now. */
  get openSessions(): number {
    return this.sessions.size;
  }

  async open(
    ref: SessionRef,
    events: SessionEvents,
    options: { linked: boolean; token?: number },
  ): Promise<NetworkSession> {
    if (options.token === undefined) {
      throw new Error('the WhatsApp driver needs the shard fencing token to store credentials');
    }
    const token = options.token;
    const key = sessionRefKey(ref);
    // One connection per session in a worker: an older one steps back quietly (keeps credentials).
    await this.sessions.get(key)?.close();
    const runtime = await this.loadRuntime();
    const logger = this.settings.logger.child({
      accountId: ref.accountId,
      sessionId: ref.sessionId,
      network: 'whatsapp',
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
      keyCache: new BoundedCache({ max: KEY_CACHE_ENTRIES, ttlMs: KEY_CACHE_TTL_MS }),
      logger: baileysLogger,
      onFenced: () => {
        logger.warn('session taken over by another worker; closing here');
        void session?.close();
      },
    };
    // A fresh login voids whatever an earlier link left behind; a reconnect uses what is stored.
    const auth = options.linked
      ? await runtime.PostgresAuthState.load(authOptions)
      : await runtime.PostgresAuthState.fresh(authOptions);

    session = new runtime.WhatsAppSession({
      ref: { ...ref },
      events,
      settings: this.settings,
      socketFactory: this.settings.socketFactory ?? runtime.baileysSocketFactory,
      auth,
      memory,
      logger,
      baileysLogger,
      schedule: (start) => this.launches.schedule(start),
      onEnded: (ended) => {
        if (this.sessions.get(key) === ended) this.sessions.delete(key);
      },
    });
    this.sessions.set(key, session);
    if (!options.linked) session.beginLogin();
    else if (!auth.linked) {
      logger.warn('no stored WhatsApp credentials for a linked session; it must be linked again');
      session.failImmediately('logged_out');
    } else session.beginReconnect();
    return session;
  }

  private loadRuntime(): Promise<Runtime> {
    this.runtime ??= import('./whatsapp-runtime').catch((error: unknown) => {
      this.runtime = null;
      throw error;
    });
    return this.runtime;
  }
}
