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
import type { BoundedCache } from './bounded-cache';
import { credentialBinding, type SecretBox } from '@jumbe/domain';
import type { CredentialItemChange, CredentialStore } from './credential-store';

export const CREDS_KIND = 'creds';
export const CREDS_KEY_ID = 'creds';

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
}

/**
 * Baileys' AuthenticationState kept in PostgreSQL instead of files: `creds` and every signal key
 * by type and id, serialised with BufferJSON and encrypted at rest. Key writes are one fenced
 * transaction each; creds writes are queued so they land in order. Baileys sees the key store
 * through makeCacheableSignalKeyStore with a size-limited cache.
 */
export class PostgresAuthState {
  readonly state: AuthenticationState;
  private pending = new Set<Promise<unknown>>();
  private credsQueue: Promise<void> = Promise.resolve();
  private fenced = false;
  /** The session ended and its credentials were deleted: nothing is written any more. */
  private discarded = false;

  private constructor(
    private readonly options: PostgresAuthStateOptions,
    creds: AuthenticationCreds,
  ) {
    this.state = {
      creds,
      keys: makeCacheableSignalKeyStore(this.rawKeyStore(), options.logger, options.keyCache),
    };
  }

  /** The stored state, or fresh credentials (`initAuthCreds`) when nothing is stored. */
  static async load(options: PostgresAuthStateOptions): Promise<PostgresAuthState> {
    const stored = await readItem<AuthenticationCreds>(options, CREDS_KIND, CREDS_KEY_ID);
    return new PostgresAuthState(options, stored ?? initAuthCreds());
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

  /** Writes the whole `creds` object (call on every `creds.update`); writes land in call order. */
  saveCreds(): Promise<void> {
    const write = this.credsQueue.then(() =>
      this.commit([
        {
          kind: CREDS_KIND,
          keyId: CREDS_KEY_ID,
          value: this.seal(CREDS_KIND, CREDS_KEY_ID, this.state.creds),
        },
      ]),
    );
    this.credsQueue = write.catch(() => undefined);
    return this.track(write);
  }

  /** Deletes everything stored for the session and drops the cached keys. */
  async clear(): Promise<void> {
    this.options.keyCache.flushAll();
    const result = await this.track(this.options.store.clear(this.options.ref, this.options.token));
    if (result === 'fenced') this.noteFenced();
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

  /** Resolves when every write started so far has finished (before a hand-over). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private rawKeyStore(): SignalKeyStore {
    return {
      get: async <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) => {
        const found: { [id: string]: SignalDataTypeMap[T] } = {};
        const rows = await this.options.store.read(this.options.ref, type, ids);
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
      },
      set: async (data: SignalDataSet) => {
        const changes: CredentialItemChange[] = [];
        for (const [kind, items] of Object.entries(data)) {
          for (const [keyId, value] of Object.entries(items ?? {})) {
            changes.push({ kind, keyId, value: value ? this.seal(kind, keyId, value) : null });
          }
        }
        if (changes.length > 0) await this.track(this.commit(changes));
      },
      clear: () => this.clear(),
    };
  }

  private async commit(changes: CredentialItemChange[]): Promise<void> {
    if (this.fenced || this.discarded) return;
    const result = await this.options.store.write(this.options.ref, this.options.token, changes);
    if (result === 'fenced') this.noteFenced();
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

async function readItem<T>(
  options: PostgresAuthStateOptions,
  kind: string,
  keyId: string,
): Promise<T | null> {
  const sealed = (await options.store.read(options.ref, kind, [keyId])).get(keyId);
  return sealed ? openItem<T>(options, kind, keyId, sealed) : null;
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
