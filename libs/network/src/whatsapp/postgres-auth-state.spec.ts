import {
  type AccountFixture,
  createAccountFixture,
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
import type { SessionRef } from '../session-ref';
import { BoundedCache } from './bounded-cache';
import { SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
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
    await auth.state.keys.set({ 'lid-mapping': { x: 'y@lid' } });
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
