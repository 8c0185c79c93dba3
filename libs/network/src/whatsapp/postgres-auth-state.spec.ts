import {
  type AccountFixture,
  createAccountFixture,
  createDataSource,
  NetworkCredentialStore,
  openMigratedTestDatabase,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import {
  addTransactionCapability,
  type AuthenticationCreds,
  BufferJSON,
  Curve,
  DEFAULT_CONNECTION_CONFIG,
  generateSignalPubKey,
  proto,
} from '@whiskeysockets/baileys';
import { TcpProxy } from '@jumbe/testing';
import type { DataSource } from 'typeorm';
import type { SessionRef } from '../session-ref';
import { BoundedCache } from './bounded-cache';
import { SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
import { STORED_IDS_MAX } from './absent-keys';
import { PostgresAuthState, type PostgresAuthStateOptions } from './postgres-auth-state';

const silent = {
  level: 'silent',
  child: () => silent,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
const TOKEN = 3;
const cipher = new SecretBox('a-secret-key-of-at-least-32-characters!', SECRET_PURPOSES.networkCredentials);

let db: MigratedTestDatabase;
let store: NetworkCredentialStore;
let account: AccountFixture;

beforeAll(async () => {
  db = await openMigratedTestDatabase();
  store = new NetworkCredentialStore(db.dataSource);
  account = await createAccountFixture(db);
}, 30_000);
afterAll(() => db.close());

function newSession(sessionId: string): Promise<SessionRef> {
  return account.session(sessionId, { state: 'starting', ownerToken: TOKEN });
}

function options(
  ref: SessionRef,
  overrides: Partial<PostgresAuthStateOptions> = {},
): PostgresAuthStateOptions {
  return {
    store,
    ref,
    token: TOKEN,
    cipher,
    keyCache: new BoundedCache({ max: 100 }),
    logger: silent,
    onFenced: () => undefined,
    ...overrides,
  };
}

const asJson = (value: unknown) => JSON.parse(JSON.stringify(value, BufferJSON.replacer)) as unknown;

describe('PostgresAuthState on PostgreSQL, as Baileys uses it', () => {
  it('writes initAuthCreds, reloads them identical (Buffers included)', async () => {
    const ref = await newSession('creds');
    const auth = await PostgresAuthState.fresh(options(ref));
    // As Baileys does on creds.update: merge, then save.
    Object.assign(auth.state.creds, {
      me: { id: '254712345678:4@s.whatsapp.net', lid: '123456789:4@lid', name: 'Duka' },
      account: proto.ADVSignedDeviceIdentity.fromObject({
        details: Buffer.from('d'),
        accountSignatureKey: Buffer.alloc(32, 9),
      }),
      routingInfo: Buffer.from([1, 2, 3]),
    } satisfies Partial<AuthenticationCreds>);
    await auth.saveCreds();

    const reloaded = await PostgresAuthState.load(options(ref));
    expect(asJson(reloaded.state.creds)).toEqual(asJson(auth.state.creds));
    expect(Buffer.isBuffer(reloaded.state.creds.noiseKey.private)).toBe(true);
    expect(reloaded.state.creds.signedIdentityKey.public).toEqual(auth.state.creds.signedIdentityKey.public);
    expect(reloaded.linked).toBe(true);
  });

  it('stores signal keys by type and id, returns the same keys after a reload, deletes on null', async () => {
    const ref = await newSession('keys');
    const auth = await PostgresAuthState.fresh(options(ref));
    const preKey = Curve.generateKeyPair();
    const syncKey = proto.Message.AppStateSyncKeyData.fromObject({
      keyData: Buffer.alloc(32, 5),
      fingerprint: { rawId: 7, currentIndex: 1 },
      timestamp: 1_767_225_600,
    });
    await auth.state.keys.set({
      'pre-key': { '1': preKey, '2': Curve.generateKeyPair() },
      session: { '255700000001.0': Buffer.from('session-record') },
      'app-state-sync-key': { AAAAAAAB: syncKey },
      'lid-mapping': { '255700000001': '99887766@lid' },
      'device-list': { '255700000001': ['0', '3'] },
    });

    const reloaded = await PostgresAuthState.load(options(ref));
    const keys = reloaded.state.keys;
    expect(asJson(await keys.get('pre-key', ['1', '404']))).toEqual(asJson({ '1': preKey }));
    expect(Buffer.from((await keys.get('session', ['255700000001.0']))['255700000001.0']!).toString()).toBe(
      'session-record',
    );
    const sync = (await keys.get('app-state-sync-key', ['AAAAAAAB']))['AAAAAAAB'];
    expect(sync).toBeInstanceOf(proto.Message.AppStateSyncKeyData);
    expect(Buffer.from(sync!.keyData!)).toEqual(Buffer.alloc(32, 5));
    expect(await keys.get('lid-mapping', ['255700000001'])).toEqual({ '255700000001': '99887766@lid' });
    expect(await keys.get('device-list', ['255700000001'])).toEqual({ '255700000001': ['0', '3'] });

    await keys.set({ 'pre-key': { '1': null } });
    const again = await PostgresAuthState.load(options(ref));
    expect(await again.state.keys.get('pre-key', ['1', '2'])).toEqual({ '2': expect.anything() });
  });

  it('keeps everything encrypted at rest, bound to its row', async () => {
    const ref = await newSession('sealed');
    const auth = await PostgresAuthState.fresh(options(ref));
    await auth.state.keys.set({ 'lid-mapping': { '255700000001': 'plain-lid-value@lid' } });
    const rows = (await db.dataSource.query(
      `SELECT kind, key_id, value FROM network_credentials WHERE account_id = $1 AND session_id = $2`,
      [ref.accountId, ref.sessionId],
    )) as { kind: string; value: Buffer }[];
    expect(rows.map((row) => row.kind).sort()).toEqual(['creds', 'lid-mapping']);
    for (const row of rows) {
      expect(row.value.toString('latin1')).not.toContain('plain-lid-value');
      expect(row.value.toString('latin1')).not.toContain('noiseKey');
    }
    const otherKey = new SecretBox(
      'another-secret-key-of-32-characters!!',
      SECRET_PURPOSES.networkCredentials,
    );
    await expect(PostgresAuthState.load(options(ref, { cipher: otherKey }))).rejects.toThrow(
      /JUMBE_SECRET_KEY/,
    );
  });

  it('refuses writes from a worker whose shard was taken over (fencing)', async () => {
    const ref = await newSession('fenced');
    const fencedCalls: string[] = [];
    const auth = await PostgresAuthState.fresh(options(ref, { onFenced: () => fencedCalls.push('fenced') }));
    await db.dataSource.query(
      `UPDATE sessions SET owner_token = $3 WHERE account_id = $1 AND session_id = $2`,
      [ref.accountId, ref.sessionId, TOKEN + 1],
    );
    // Refused out loud, so Baileys never receipts or sends on it, and not kept in this worker's
    // key cache either: it goes on from what the next owner loads.
    await expect(auth.state.keys.set({ 'lid-mapping': { x: 'y@lid' } })).rejects.toThrow(/taken over/);
    expect(await auth.state.keys.get('lid-mapping', ['x'])).toEqual({});
    auth.state.creds.nextPreKeyId = 500;
    await auth.saveCreds();
    await auth.clear();
    expect(fencedCalls).toEqual(['fenced']);
    const newOwner = await PostgresAuthState.load(options(ref, { token: TOKEN + 1 }));
    expect(newOwner.state.creds.nextPreKeyId).toBe(1);
    expect(await newOwner.state.keys.get('lid-mapping', ['x'])).toEqual({});
  });

  it('clear removes every stored item', async () => {
    const ref = await newSession('clear');
    const auth = await PostgresAuthState.fresh(options(ref));
    await auth.state.keys.set({ 'pre-key': { '1': Curve.generateKeyPair() } });
    await auth.clear();
    expect(await store.count(ref)).toBe(0);
  });

  it('discard deletes for good: a write still running lands first, a later one never (a key stored as the phone unlinked)', async () => {
    const ref = await newSession('discard');
    const auth = await PostgresAuthState.fresh(options(ref));
    const running = auth.state.keys.set({ session: { '100000000000001_1.0': Buffer.from('record') } });
    const discarded = auth.discard();
    await auth.state.keys.set({ 'pre-key': { '2': Curve.generateKeyPair() } });
    auth.state.creds.nextPreKeyId = 900;
    await auth.saveCreds();
    await Promise.all([running, discarded]);
    await auth.state.keys.set({ 'sender-key-memory': { 'group@g.us': { x: true } } });
    expect(await store.count(ref)).toBe(0);
  });

  describe('asks PostgreSQL only about keys that may be stored', () => {
    const contact = '255700000001@lid';
    const token = { token: Buffer.from('privacy-token'), timestamp: '1767225600' };

    /** The store, with the ids of every read noted (a key cache that keeps nothing). */
    function counted(ref: SessionRef, reads: string[][]): PostgresAuthStateOptions {
      const noting: PostgresAuthStateOptions['store'] = {
        read: (at, kind, ids) => {
          reads.push(ids);
          return store.read(at, kind, ids);
        },
        write: (at, at2, changes) => store.write(at, at2, changes),
        clear: (at, at2) => store.clear(at, at2),
        storedKeys: (at, except, limit) => store.storedKeys(at, except, limit),
      };
      return options(ref, {
        store: noting,
        keyCache: new BoundedCache({ max: 100, passThrough: () => true }),
      });
    }

    it('a fresh login knows its store empty: Baileys’ asks for absent keys (a privacy token on every send) read nothing until written', async () => {
      const ref = await newSession('absent-fresh');
      const reads: string[][] = [];
      const keys = (await PostgresAuthState.fresh(counted(ref, reads))).state.keys;

      expect(await keys.get('tctoken', [contact])).toEqual({});
      expect(await keys.get('session', ['100000000000051_1.0'])).toEqual({});
      expect(reads).toEqual([]);
      await keys.set({ tctoken: { [contact]: token } });
      expect(asJson(await keys.get('tctoken', [contact]))).toEqual(asJson({ [contact]: token }));
      expect(reads).toEqual([[contact]]);
      await keys.set({ tctoken: { [contact]: null } });
      expect(await keys.get('tctoken', [contact])).toEqual({});
      expect(reads).toEqual([[contact]]);
    });

    it('a loaded session reads the ids it has stored once, then asks only about those; pre-keys (not indexed) are asked about once when absent', async () => {
      const ref = await newSession('absent-loaded');
      const first = await PostgresAuthState.fresh(options(ref));
      await first.state.keys.set({
        tctoken: { [contact]: token },
        'pre-key': { '7': Curve.generateKeyPair() },
      });
      const reads: string[][] = [];
      const keys = (await PostgresAuthState.load(counted(ref, reads))).state.keys;
      reads.length = 0;

      expect(Object.keys(await keys.get('tctoken', [contact, '255700000002@lid']))).toEqual([contact]);
      expect(reads).toEqual([[contact]]);
      reads.length = 0;
      expect(Object.keys(await keys.get('pre-key', ['7', '8']))).toEqual(['7']);
      expect(await keys.get('pre-key', ['8'])).toEqual({});
      expect(reads).toEqual([['7', '8']]);
    });

    it('a session with more stored ids than it indexes asks about each absent key once', async () => {
      const ref = await newSession('absent-large');
      const first = await PostgresAuthState.fresh(options(ref));
      const many = Object.fromEntries(
        Array.from({ length: STORED_IDS_MAX + 1 }, (_, i) => [`25570${i}`, `${i}@lid`]),
      );
      await first.state.keys.set({ 'lid-mapping': many });
      const reads: string[][] = [];
      const keys = (await PostgresAuthState.load(counted(ref, reads))).state.keys;
      reads.length = 0;

      expect(await keys.get('tctoken', [contact])).toEqual({});
      expect(await keys.get('tctoken', [contact])).toEqual({});
      expect(await keys.get('lid-mapping', ['255700'])).toEqual({ '255700': '0@lid' });
      expect(reads).toEqual([[contact], ['255700']]);
    });
  });

  it('carries a real Signal conversation across reloads (Baileys’ transactions and libsignal)', async () => {
    const alice = await newSession('alice');
    const bob = await newSession('bob');
    const aliceJid = '255700000101@s.whatsapp.net';
    const bobJid = '255700000202@s.whatsapp.net';

    // Both devices have stored identities (as after linking).
    await PostgresAuthState.fresh(options(alice));
    // Bob publishes a pre-key bundle: his identity, signed pre-key and one one-time pre-key.
    const bobAuth = await PostgresAuthState.fresh(options(bob));
    const bobPreKey = Curve.generateKeyPair();
    await bobAuth.state.keys.set({ 'pre-key': { '31': bobPreKey } });
    const bobCreds = bobAuth.state.creds;

    const repository = async (ref: SessionRef) => {
      const auth = await PostgresAuthState.load(options(ref));
      // Exactly how makeWASocket wraps the key store it is given.
      const keys = addTransactionCapability(auth.state.keys, silent, {
        maxCommitRetries: 1,
        delayBetweenTriesMs: 1,
      });
      // Baileys' default signal repository (libsignal), the one every socket uses.
      return DEFAULT_CONNECTION_CONFIG.makeSignalRepository({ creds: auth.state.creds, keys }, silent);
    };

    const aliceRepo = await repository(alice);
    await aliceRepo.injectE2ESession({
      jid: bobJid,
      session: {
        registrationId: bobCreds.registrationId,
        identityKey: generateSignalPubKey(bobCreds.signedIdentityKey.public),
        signedPreKey: {
          keyId: bobCreds.signedPreKey.keyId,
          publicKey: generateSignalPubKey(bobCreds.signedPreKey.keyPair.public),
          signature: bobCreds.signedPreKey.signature,
        },
        preKey: { keyId: 31, publicKey: generateSignalPubKey(bobPreKey.public) },
      },
    });
    const first = await aliceRepo.encryptMessage({ jid: bobJid, data: Buffer.from('Habari Bob') });
    expect(first.type).toBe('pkmsg');

    // Both sides reload from PostgreSQL (new caches): only what was stored is left.
    const bobRepo = await repository(bob);
    const opened = await bobRepo.decryptMessage({
      jid: aliceJid,
      type: first.type,
      ciphertext: first.ciphertext,
    });
    expect(Buffer.from(opened).toString()).toBe('Habari Bob');

    const reply = await (
      await repository(bob)
    ).encryptMessage({ jid: aliceJid, data: Buffer.from('Salama Alice') });
    expect(reply.type).toBe('msg');
    const replyOpened = await (
      await repository(alice)
    ).decryptMessage({
      jid: bobJid,
      type: reply.type,
      ciphertext: reply.ciphertext,
    });
    expect(Buffer.from(replyOpened).toString()).toBe('Salama Alice');
  }, 20_000);
});

/**
 * PostgreSQL going away under a linked session (issue 28): the credentials' connection runs through
 * a TCP proxy the test cuts (connections reset, new ones refused) and restores.
 */
describe('PostgresAuthState through a PostgreSQL outage', () => {
  let proxy: TcpProxy;
  let proxied: DataSource;
  let proxiedStore: NetworkCredentialStore;

  beforeAll(async () => {
    proxy = await TcpProxy.inFrontOf(db.url);
    proxied = createDataSource(proxy.rewrite(db.url), { poolSize: 2, applicationName: 'jumbe-outage-test' });
    await proxied.initialize();
    proxiedStore = new NetworkCredentialStore(proxied);
  });
  afterEach(() => proxy.restore());
  afterAll(async () => {
    await proxy.restore();
    await proxied.destroy();
    await proxy.close();
  });

  const throughProxy = (ref: SessionRef, overrides: Partial<PostgresAuthStateOptions> = {}) =>
    options(ref, { store: proxiedStore, ...overrides });

  /** What is stored for the session, read past the proxy. */
  async function storedCreds(ref: SessionRef): Promise<AuthenticationCreds> {
    return (await PostgresAuthState.load(options(ref))).state.creds;
  }

  async function until(what: string, condition: () => boolean): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('a Baileys transaction committed while PostgreSQL is down lands once it is back, past Baileys’ own retries', async () => {
    const ref = await newSession('outage-commit');
    const auth = await PostgresAuthState.fresh(throughProxy(ref));
    // As makeWASocket wraps the store, with a retry window far shorter than the outage below.
    const keys = addTransactionCapability(auth.state.keys, silent, {
      maxCommitRetries: 3,
      delayBetweenTriesMs: 20,
    });
    const session = Buffer.from('the ratchet after decrypting a message');
    expect(auth.lastUnreachableAt).toBe(0);

    await proxy.cut();
    const cutAt = Date.now();
    let committed = false;
    const transaction = keys
      .transaction(async () => {
        await keys.set({ session: { 'contact.0': session } });
      }, 'contact')
      .then(() => (committed = true));
    transaction.catch(() => undefined);
    // Well past Baileys' three tries (60 ms): it has given up by now unless our store waits.
    await new Promise((resolve) => setTimeout(resolve, 600));
    // The session's received order waits for a message whose key write waits (ArrivalOrder).
    expect(auth.lastUnreachableAt).toBeGreaterThanOrEqual(cutAt);
    await proxy.restore();

    await transaction;
    expect(committed).toBe(true);
    const reloaded = await PostgresAuthState.load(options(ref));
    expect(await reloaded.state.keys.get('session', ['contact.0'])).toEqual({ 'contact.0': session });
  }, 30_000);

  it('a creds write that failed is tried again until it lands, and the latest creds win', async () => {
    const ref = await newSession('outage-creds');
    const auth = await PostgresAuthState.fresh(throughProxy(ref));

    await proxy.cut();
    auth.state.creds.nextPreKeyId = 31;
    const first = auth.saveCreds();
    auth.state.creds.nextPreKeyId = 62;
    auth.state.creds.firstUnuploadedPreKeyId = 62;
    const second = auth.saveCreds();
    const settled: string[] = [];
    void first.then(
      () => settled.push('first'),
      () => settled.push('first failed'),
    );
    void second.then(
      () => settled.push('second'),
      () => settled.push('second failed'),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(settled).toEqual([]);
    await proxy.restore();

    await Promise.all([first, second]);
    expect(await storedCreds(ref)).toMatchObject({ nextPreKeyId: 62, firstUnuploadedPreKeyId: 62 });
  }, 30_000);

  it('flush (a close) during an outage returns after its grace, and the creds written before it are kept', async () => {
    const ref = await newSession('outage-close');
    const auth = await PostgresAuthState.fresh(throughProxy(ref, { closeGraceMs: 300 }));
    const before = (await storedCreds(ref)).nextPreKeyId;

    await proxy.cut();
    auth.state.creds.nextPreKeyId = before + 100;
    const write = auth.saveCreds();
    write.catch(() => undefined);
    const keyWrite = Promise.resolve(auth.state.keys.set({ session: { 'contact.0': Buffer.from('x') } }));
    keyWrite.catch(() => undefined);
    let flushed = false;
    const flushing = auth.flush().then(() => (flushed = true));
    await until('flush to return while PostgreSQL is still down', () => flushed);
    await flushing;
    await expect(write).rejects.toThrow();
    await expect(keyWrite).rejects.toThrow();
    expect(proxy.isCut).toBe(true);
    await proxy.restore();
    expect((await storedCreds(ref)).nextPreKeyId).toBe(before);
  }, 30_000);
});
