import {
  type AuthenticationCreds,
  type AuthenticationState,
  BufferJSON,
  initAuthCreds,
  makeCacheableSignalKeyStore,
  proto,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalKeyStore,
} from '@whiskeysockets/baileys';
import type { SessionRef } from '../session-ref';
import type { BaileysLogger } from './whatsapp-socket';
import { withRevivableSenderKeys } from './sender-key-bytes';
import type { BoundedCache } from './bounded-cache';
import { credentialBinding, type SecretBox } from '@jumbe/domain';
import type { CredentialItemChange, CredentialKey, CredentialStore } from './credential-store';
import { AbsentKeys, STORED_IDS_MAX, UNINDEXED_KINDS } from './absent-keys';
import { type KeyItem, StoredAhead } from './stored-ahead';

export const CREDS_KIND = 'creds';
export const CREDS_KEY_ID = 'creds';
/** What opening a session reads: its creds item, and the ids of every kind's items but the unindexed. */
export const STORED_START = {
  creds: { kind: CREDS_KIND, keyId: CREDS_KEY_ID },
  exceptKinds: UNINDEXED_KINDS,
  limit: STORED_IDS_MAX,
} as const;

export interface PostgresAuthStateOptions {
  store: CredentialStore;
  ref: SessionRef;
  /** The shard's fencing token: every write is refused once a newer owner holds the session. */
  token: number;
  cipher: SecretBox;
  /** Bounds Baileys' signal-key cache (its default grows without limit). */
  keyCache: BoundedCache;
  logger: BaileysLogger;
  /** Called once, the first time a write is refused because another worker took the session over. */
  onFenced: () => void;
  /**
   * How long a signal-key read or write waits for PostgreSQL to come back before it fails
   * (default OUTAGE_WAIT_MS). Credentials (`creds`) wait for as long as the session lives.
   */
  outageWaitMs?: number;
  /** After `flush()` (a close), how long writes still waiting for PostgreSQL keep trying (default CLOSE_GRACE_MS). */
  closeGraceMs?: number;
}

/**
 * Baileys commits a decryption's key changes with 10 tries 3 s apart, then takes the message for
 * undecryptable (issue 28: one of two messages lost in a 40 s PostgreSQL outage). Our store waits
 * for PostgreSQL itself, well past that window, so Baileys' first try succeeds once it is back.
 */
export const OUTAGE_WAIT_MS = 3 * 60 * 1000;
/** A planned close (a hand-over, a shutdown) does not wait out an outage: the shard must move on. */
export const CLOSE_GRACE_MS = 5_000;
/** Waits between two tries while PostgreSQL is unreachable: doubling from the first, up to the last. */
const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 5_000;

/**
 * Baileys' AuthenticationState kept in PostgreSQL instead of files: `creds` and every signal key
 * by type and id, serialised with BufferJSON and encrypted at rest. Key writes are one fenced
 * statement each; creds writes are queued so they land in order. Baileys sees the key store
 * through makeCacheableSignalKeyStore with a size-limited cache; ids known absent are not asked
 * for again (AbsentKeys), and a send's changes stored ahead are not written twice (StoredAhead).
 */
export class PostgresAuthState {
  readonly state: AuthenticationState;
  private pending = new Set<Promise<unknown>>();
  private fenced = false;
  /** The session ended and its credentials were deleted: nothing is written any more. */
  private discarded = false;
  /** `saveCreds` calls so far, and how many of them the stored creds include (latest wins). */
  private credsWanted = 0;
  private credsStored = 0;
  /** The one creds write under way: it writes the creds as they are when it starts. */
  private credsWriter: Promise<void> | null = null;
  /** Set by `flush()`: waits for PostgreSQL end at this time (epoch ms). */
  private closingAt: number | null = null;
  /** Wakes the retry waits early (a close): they try once more, then give up if past the grace. */
  private readonly sleepers = new Set<() => void>();
  /** Key ids known not to be stored: asked again only once written. */
  private readonly absent = new AbsentKeys();
  /** What `storeAhead` wrote, so the transaction's commit of the same values writes nothing. */
  private readonly storedAhead = new StoredAhead();
  /** The key sets `storeAhead` hands through Baileys' cache to the raw store. */
  private readonly aheadWrites = new WeakSet<SignalDataSet>();
  /** When a read or write last failed to reach PostgreSQL (epoch ms; 0: never). */
  private unreachableAt = 0;

  private constructor(
    private readonly options: PostgresAuthStateOptions,
    creds: AuthenticationCreds,
  ) {
    this.state = {
      creds,
      // Outside the cache, so what it keeps is the revivable form too (sender-key-bytes.ts).
      keys: withRevivableSenderKeys(
        makeCacheableSignalKeyStore(this.rawKeyStore(), options.logger, options.keyCache),
      ),
    };
  }

  /**
   * When a signal-key or creds read or write last failed to reach PostgreSQL (epoch ms; 0: never).
   * A message whose decryption waits on such a write is still coming: the session's received
   * order waits for it as long as PostgreSQL is away, not only its usual limit (ArrivalOrder).
   */
  get lastUnreachableAt(): number {
    return this.unreachableAt;
  }

  /** The stored state, or fresh credentials (`initAuthCreds`) when nothing is stored. */
  static async load(options: PostgresAuthStateOptions): Promise<PostgresAuthState> {
    const [creds, storedKeys] = await Promise.all([
      options.store.read(options.ref, CREDS_KIND, [CREDS_KEY_ID]).then((found) => found.get(CREDS_KEY_ID)),
      options.store.storedKeys?.(options.ref, STORED_START.exceptKinds, STORED_START.limit) ?? null,
    ]);
    return PostgresAuthState.fromStored(options, { creds: creds ?? null, storedKeys });
  }

  /**
   * The state from what `load` reads (STORED_START), read by the caller: the driver reads it in one
   * statement with the session's proxy (SessionStartStore).
   */
  static fromStored(
    options: PostgresAuthStateOptions,
    stored: { creds: Buffer | null; storedKeys: CredentialKey[] | null },
  ): PostgresAuthState {
    const creds = stored.creds
      ? openItem<AuthenticationCreds>(options, CREDS_KIND, CREDS_KEY_ID, stored.creds)
      : null;
    const auth = new PostgresAuthState(options, creds ?? initAuthCreds());
    if (stored.storedKeys) auth.absent.stored(stored.storedKeys);
    return auth;
  }

  /** Empty state for a fresh login: stored credentials are deleted, new ones generated and saved. */
  static async fresh(options: PostgresAuthStateOptions): Promise<PostgresAuthState> {
    const auth = new PostgresAuthState(options, initAuthCreds());
    await auth.clear();
    await auth.saveCreds();
    return auth;
  }

  /** Linked to a phone: the pairing completed and the server issued the account identity. */
  get linked(): boolean {
    return Boolean(this.state.creds.me?.id && this.state.creds.account);
  }

  /**
   * Stores the whole `creds` object (call on every `creds.update`). Latest wins: one write at a
   * time, each of the creds as they are when it starts, so a burst of updates costs one or two
   * writes. A write that fails (PostgreSQL down) is tried again until it lands, the session is
   * taken over (fenced) or closed past its grace: a lost write would leave the next owner stale
   * pre-key counters (issue 28). Resolves once the creds as of this call are stored.
   */
  saveCreds(): Promise<void> {
    const version = ++this.credsWanted;
    return this.track(this.untilCredsStored(version));
  }

  /**
   * Stores an encryption's key changes before Baileys' transaction commits them (the stanza goes
   * out in between: durable-encryptions.ts). Through the key cache like any write; the commit of
   * the same values afterwards is then left out (StoredAhead), so a send costs one write, not two.
   */
  async storeAhead(data: SignalDataSet): Promise<void> {
    this.aheadWrites.add(data);
    await this.state.keys.set(data);
  }

  /** Deletes everything stored for the session and drops the cached keys. */
  async clear(): Promise<void> {
    this.options.keyCache.flushAll();
    this.storedAhead.forgetAll();
    const alone = this.pending.size === 0;
    const writesBefore = this.absent.readStarts();
    const result = await this.track(this.options.store.clear(this.options.ref, this.options.token));
    if (result === 'fenced') this.noteFenced();
    // Known empty only if no write ran alongside (one landing after the delete would be stored).
    this.absent.cleared(alone && result === 'saved' && writesBefore === this.absent.readStarts());
  }

  /**
   * Deletes everything stored for good (the phone unlinked the device, a logout): writes already
   * running finish first and every later one is dropped, so a key Baileys was still storing when
   * the connection ended never lands after the delete (it did, found with the WhatsApp emulator).
   */
  async discard(): Promise<void> {
    this.discarded = true;
    await this.flush();
    await this.clear();
  }

  /**
   * Before a hand-over or shutdown: resolves when every write started so far has finished, the
   * creds' latest included. Writes still waiting for PostgreSQL get `closeGraceMs` more, then give
   * up: a close during an outage must return (the shard moves on; issue 28).
   */
  async flush(): Promise<void> {
    this.closingAt ??= Date.now() + (this.options.closeGraceMs ?? CLOSE_GRACE_MS);
    for (const wake of [...this.sleepers]) wake();
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async untilCredsStored(version: number): Promise<void> {
    while (this.credsStored < version) {
      this.credsWriter ??= this.writeLatestCreds().finally(() => {
        this.credsWriter = null;
      });
      await this.credsWriter;
    }
  }

  private async writeLatestCreds(): Promise<void> {
    const version = this.credsWanted;
    const value = this.seal(CREDS_KIND, CREDS_KEY_ID, this.state.creds);
    await this.commit([{ kind: CREDS_KIND, keyId: CREDS_KEY_ID, value }], { waitMs: Infinity });
    // Also when fenced or discarded: nothing more of these creds is ever to be written.
    this.credsStored = Math.max(this.credsStored, version);
  }

  private rawKeyStore(): SignalKeyStore {
    return {
      get: <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) => this.readKeys(type, ids),
      set: (data: SignalDataSet) => this.writeKeys(data),
      clear: () => this.clear(),
    };
  }

  private async readKeys<T extends keyof SignalDataTypeMap>(
    type: T,
    ids: string[],
  ): Promise<{ [id: string]: SignalDataTypeMap[T] }> {
    const found: { [id: string]: SignalDataTypeMap[T] } = {};
    const asked = this.absent.unknown(type, ids);
    if (asked.length === 0) return found;
    const since = this.absent.readStarts();
    const rows = await this.untilReachable('read signal keys', () =>
      this.options.store.read(this.options.ref, type, asked),
    );
    this.absent.notFound(
      type,
      asked.filter((id) => !rows.has(id)),
      since,
    );
    for (const [id, sealed] of rows) {
      let value = this.open<SignalDataTypeMap[T]>(type, id, sealed);
      if (type === 'app-state-sync-key' && value) {
        value = proto.Message.AppStateSyncKeyData.fromObject(
          value as proto.Message.IAppStateSyncKeyData,
        ) as unknown as SignalDataTypeMap[T];
      }
      found[id] = value;
    }
    return found;
  }

  private async writeKeys(data: SignalDataSet): Promise<void> {
    const ahead = this.aheadWrites.delete(data);
    const items = itemsOf(data);
    const written = ahead ? items : this.storedAhead.unwritten(items);
    if (written.length === 0) return;
    const changes: CredentialItemChange[] = written.map(({ kind, keyId, value }) => ({
      kind,
      keyId,
      value: value ? this.seal(kind, keyId, value) : null,
    }));
    this.absent.writing(changes);
    try {
      await this.track(this.commit(changes));
    } catch (error) {
      this.forgetCached(changes);
      throw error;
    }
    // Refused because another worker holds the session now: that must not look stored, or
    // Baileys sends the receipt or the ciphertext this state belongs to, and the next owner,
    // which never sees the state, cannot decrypt what the contact sends next (issue 28).
    if (this.fenced) {
      this.forgetCached(changes);
      throw new Error('WhatsApp session taken over by another worker: signal keys not stored');
    }
    if (this.discarded) return;
    this.absent.landed(changes);
    if (ahead) this.storedAhead.landed(written);
  }

  private async commit(
    changes: CredentialItemChange[],
    { waitMs = this.options.outageWaitMs ?? OUTAGE_WAIT_MS } = {},
  ): Promise<void> {
    if (this.fenced || this.discarded) return;
    const result = await this.untilReachable(
      'store credentials',
      () => this.options.store.write(this.options.ref, this.options.token, changes),
      waitMs,
    );
    if (result === 'fenced') this.noteFenced();
  }

  /**
   * Runs `work` until it succeeds, trying again (backing off) while it fails: PostgreSQL is
   * restarting or unreachable. Gives up with the last error after `waitMs`, once the credentials
   * were discarded or fenced, or when a close's grace is over.
   */
  private async untilReachable<T>(
    what: string,
    work: () => Promise<T>,
    waitMs = this.options.outageWaitMs ?? OUTAGE_WAIT_MS,
  ): Promise<T> {
    const giveUpAt = Date.now() + waitMs;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await work();
      } catch (error) {
        const now = Date.now();
        this.unreachableAt = now;
        const closed = this.closingAt !== null && now >= this.closingAt;
        if (now >= giveUpAt || closed || this.fenced || this.discarded) throw error;
        const delayMs = Math.min(RETRY_FIRST_MS * 2 ** attempt, RETRY_MAX_MS);
        // Once per outage at warn: a long one would otherwise log a line every few seconds.
        const log = attempt === 0 ? this.options.logger.warn : this.options.logger.debug;
        log.call(
          this.options.logger,
          { err: error, attempt: attempt + 1, delayMs },
          `could not ${what}; retrying`,
        );
        await this.sleep(Math.min(delayMs, giveUpAt - now));
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  /**
   * Baileys' key cache takes a write before the store does (makeCacheableSignalKeyStore,
   * Utils/auth-utils.js:58-68; its keys are `type.id`): a write that did not land must not stay in
   * it, or this worker goes on from a state that the next owner never loads.
   */
  private forgetCached(changes: CredentialItemChange[]): void {
    for (const { kind, keyId } of changes) this.options.keyCache.del(`${kind}.${keyId}`);
  }

  private noteFenced(): void {
    if (this.fenced) return;
    this.fenced = true;
    this.options.onFenced();
  }

  private seal(kind: string, keyId: string, value: unknown): Buffer {
    const json = JSON.stringify(value, BufferJSON.replacer);
    return this.options.cipher.sealBytes(Buffer.from(json, 'utf8'), addressOf(this.options.ref, kind, keyId));
  }

  private open<T>(kind: string, keyId: string, sealed: Buffer): T {
    return openItem<T>(this.options, kind, keyId, sealed);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    const done = () => this.pending.delete(work);
    work.then(done, done);
    return work;
  }
}

/** Baileys' key set as items, in its order. */
function itemsOf(data: SignalDataSet): KeyItem[] {
  const items: KeyItem[] = [];
  for (const [kind, values] of Object.entries(data)) {
    for (const [keyId, value] of Object.entries(values ?? {})) items.push({ kind, keyId, value });
  }
  return items;
}

function openItem<T>(options: PostgresAuthStateOptions, kind: string, keyId: string, sealed: Buffer): T {
  let plain: Buffer;
  try {
    plain = options.cipher.openBytes(sealed, addressOf(options.ref, kind, keyId));
  } catch {
    throw new Error(
      `stored WhatsApp credentials (${kind}) cannot be decrypted: JUMBE_SECRET_KEY differs from the key they were saved with`,
    );
  }
  return JSON.parse(plain.toString('utf8'), BufferJSON.reviver) as T;
}

/** Binds a value to its row: a value moved to another session or key fails to decrypt. */
function addressOf(ref: SessionRef, kind: string, keyId: string): string {
  return credentialBinding(ref, kind, keyId);
}
