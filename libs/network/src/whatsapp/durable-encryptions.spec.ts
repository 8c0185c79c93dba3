import {
  type AccountFixture,
  createAccountFixture,
  NetworkCredentialStore,
  openMigratedTestDatabase,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import {
  addTransactionCapability,
  Curve,
  generateSignalPubKey,
  type SignalKeyStoreWithTransaction,
} from '@whiskeysockets/baileys';
import { SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
import type { SessionRef } from '../session-ref';
import { BoundedCache } from './bounded-cache';
import type { CredentialItemChange, CredentialStore } from './credential-store';
import { durableEncryptions } from './durable-encryptions';
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
const TOKEN = 4;
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

/** The real store, with every write it is asked for noted (the round trips a send costs). */
function notingWrites(writes: CredentialItemChange[][]): CredentialStore {
  return {
    read: (ref, kind, ids) => store.read(ref, kind, ids),
    write: (ref, token, changes) => {
      writes.push(changes);
      return store.write(ref, token, changes);
    },
    clear: (ref, token) => store.clear(ref, token),
  };
}

/** A contact's device with a stored identity, and the pre-key bundle our session starts from. */
async function contact(sessionId: string, preKeyId: number) {
  const ref = await account.session(sessionId, { state: 'starting', ownerToken: TOKEN });
  const auth = await PostgresAuthState.fresh(options(ref));
  const preKey = Curve.generateKeyPair();
  await auth.state.keys.set({ 'pre-key': { [preKeyId]: preKey } });
  const { creds } = auth.state;
  const bundle = {
    registrationId: creds.registrationId,
    identityKey: generateSignalPubKey(creds.signedIdentityKey.public),
    signedPreKey: {
      keyId: creds.signedPreKey.keyId,
      publicKey: generateSignalPubKey(creds.signedPreKey.keyPair.public),
      signature: creds.signedPreKey.signature,
    },
    preKey: { keyId: preKeyId, publicKey: generateSignalPubKey(preKey.public) },
  };
  return { ref, bundle };
}

/** Baileys' Signal repository over our store, wrapped as makeWASocket wraps it. */
function repositoryOf(auth: PostgresAuthState) {
  const keys = addTransactionCapability(auth.state.keys, silent, {
    maxCommitRetries: 1,
    delayBetweenTriesMs: 1,
  }) as SignalKeyStoreWithTransaction;
  const repository = durableEncryptions(auth)(
    { creds: auth.state.creds, keys },
    silent,
    async () => undefined,
  );
  return { keys, repository };
}

describe('durableEncryptions on PostgreSQL, through Baileys’ transactions and libsignal', () => {
  it('stores the ratchets of all of a send’s encryptions in one write before the ciphertexts come back, and the commit after the stanza writes nothing more', async () => {
    const bob = await contact('de-bob', 41);
    const phone = await contact('de-phone', 42);
    const bobJid = '255700000301@s.whatsapp.net';
    const phoneJid = '255700000300@s.whatsapp.net';
    const ref = await account.session('de-sender', { state: 'starting', ownerToken: TOKEN });
    await PostgresAuthState.fresh(options(ref));
    const writes: CredentialItemChange[][] = [];
    const auth = await PostgresAuthState.load(options(ref, { store: notingWrites(writes) }));
    const { keys, repository } = repositoryOf(auth);
    await repository.injectE2ESession({ jid: bobJid, session: bob.bundle });
    await repository.injectE2ESession({ jid: phoneJid, session: phone.bundle });
    // A first send (pkmsg) makes the sessions known: what follows is a send to a known contact.
    await keys.transaction(
      () => repository.encryptMessage({ jid: bobJid, data: Buffer.from('first') }),
      'me',
    );
    await keys.transaction(
      () => repository.encryptMessage({ jid: phoneJid, data: Buffer.from('first') }),
      'me',
    );
    writes.length = 0;

    const sessionIds = ['255700000301.0', '255700000300.0'];
    let storedWhenEncrypted = new Map<string, Buffer>();
    await keys.transaction(async () => {
      // As relayMessage: the contact's device and our phone, encrypted side by side.
      await Promise.all([
        repository.encryptMessage({ jid: bobJid, data: Buffer.from('Habari') }),
        repository.encryptMessage({ jid: phoneJid, data: Buffer.from('Habari') }),
      ]);
      // Here the stanza goes out: what both encryptions moved to must be in PostgreSQL already.
      storedWhenEncrypted = await store.read(ref, 'session', sessionIds);
    }, 'me');

    expect(writes).toHaveLength(1);
    expect(writes[0]!.map((change) => `${change.kind}.${change.keyId}`).sort()).toEqual([
      'session.255700000300.0',
      'session.255700000301.0',
    ]);
    // The transaction's commit left out the values stored ahead, and nothing was lost by it.
    expect([...(await store.read(ref, 'session', sessionIds)).entries()].sort()).toEqual(
      [...storedWhenEncrypted.entries()].sort(),
    );
    expect(storedWhenEncrypted.size).toBe(2);
  }, 30_000);

  it('a send whose sessions are read from PostgreSQL (a cold key cache: the first send after a take-over) still stores its ratchets in one write', async () => {
    const dan = await contact('de-dan', 61);
    const phone = await contact('de-dan-phone', 62);
    const danJid = '255700000601@s.whatsapp.net';
    const phoneJid = '255700000600@s.whatsapp.net';
    const ref = await account.session('de-cold-sender', { state: 'starting', ownerToken: TOKEN });
    const first = repositoryOf(await PostgresAuthState.fresh(options(ref)));
    await first.repository.injectE2ESession({ jid: danJid, session: dan.bundle });
    await first.repository.injectE2ESession({ jid: phoneJid, session: phone.bundle });
    for (const jid of [danJid, phoneJid])
      await first.keys.transaction(
        () => first.repository.encryptMessage({ jid, data: Buffer.from('first') }),
        'me',
      );
    // The next owner: nothing cached, each encryption reads its session on its own round trip.
    const writes: CredentialItemChange[][] = [];
    const { keys, repository } = repositoryOf(
      await PostgresAuthState.load(options(ref, { store: notingWrites(writes) })),
    );
    await keys.transaction(async () => {
      await Promise.all([
        repository.encryptMessage({ jid: danJid, data: Buffer.from('Habari') }),
        repository.encryptMessage({ jid: phoneJid, data: Buffer.from('Habari') }),
      ]);
    }, 'me');

    expect(writes.map((changes) => changes.map((change) => `${change.kind}.${change.keyId}`).sort())).toEqual(
      [['session.255700000600.0', 'session.255700000601.0']],
    );
  }, 30_000);

  it('two sessions of one worker sending to the same contact at once each store only their own ratchet', async () => {
    // libsignal queues all work on one address (the contact's) in one process-wide queue, and a
    // queued job runs in the async context of the job that started the queue: another session's.
    const carol = await contact('de-carol', 51);
    const carolAuth = await PostgresAuthState.load(options(carol.ref));
    await carolAuth.state.keys.set({
      'pre-key': { 52: Curve.generateKeyPair(), 53: Curve.generateKeyPair() },
    });
    const carolJid = '255700000500@s.whatsapp.net';
    const senders = await Promise.all(
      ['de-anna', 'de-ben'].map(async (sessionId, i) => {
        const ref = await account.session(sessionId, { state: 'starting', ownerToken: TOKEN });
        const auth = await PostgresAuthState.fresh(options(ref));
        const jid = `25570000051${i}@s.whatsapp.net`;
        const { keys, repository } = repositoryOf(auth);
        const preKey = (await carolAuth.state.keys.get('pre-key', [String(52 + i)]))[String(52 + i)]!;
        await repository.injectE2ESession({
          jid: carolJid,
          session: {
            ...carol.bundle,
            preKey: { keyId: 52 + i, publicKey: generateSignalPubKey(preKey.public) },
          },
        });
        return { ref, jid, keys, repository };
      }),
    );
    const carolRepo = () => repositoryOf(carolAuth).repository;
    const sendAll = (text: string) =>
      Promise.all(
        senders.map(({ keys, repository }) =>
          keys.transaction(() => repository.encryptMessage({ jid: carolJid, data: Buffer.from(text) }), 'me'),
        ),
      );
    for (const round of ['one', 'two', 'three']) {
      const sent = await sendAll(round);
      for (const [i, { jid }] of senders.entries()) {
        const opened = await carolRepo().decryptMessage({
          jid,
          type: sent[i]!.type,
          ciphertext: sent[i]!.ciphertext,
        });
        expect(Buffer.from(opened).toString()).toBe(round);
      }
    }
    // Each sender as the next owner loads it from PostgreSQL: its own session with Carol.
    for (const { ref, jid } of senders) {
      const { keys, repository } = repositoryOf(await PostgresAuthState.load(options(ref)));
      const next = await keys.transaction(
        () => repository.encryptMessage({ jid: carolJid, data: Buffer.from('after reload') }),
        'me',
      );
      const opened = await carolRepo().decryptMessage({ jid, type: next.type, ciphertext: next.ciphertext });
      expect(Buffer.from(opened).toString()).toBe('after reload');
    }
  }, 30_000);

  it('two sessions sending at once to a contact they share and to their own phones: each send is one write', async () => {
    // The second session's encryption for the shared contact waits in libsignal's queue behind
    // the first's: it still joins its own send's write (before: written on its own, two a send).
    const dora = await contact('de-dora', 91);
    const doraAuth = await PostgresAuthState.load(options(dora.ref));
    const doraJid = '255700000900@s.whatsapp.net';
    const senders = await Promise.all(
      ['de-eve', 'de-fay'].map(async (sessionId, i) => {
        const phone = await contact(`de-${sessionId}-phone`, 95 + i);
        const phoneJid = `25570000099${i}@s.whatsapp.net`;
        const ref = await account.session(sessionId, { state: 'starting', ownerToken: TOKEN });
        await PostgresAuthState.fresh(options(ref));
        const writes: CredentialItemChange[][] = [];
        const { keys, repository } = repositoryOf(
          await PostgresAuthState.load(options(ref, { store: notingWrites(writes) })),
        );
        const preKeyId = String(92 + i);
        await doraAuth.state.keys.set({ 'pre-key': { [preKeyId]: Curve.generateKeyPair() } });
        const preKey = (await doraAuth.state.keys.get('pre-key', [preKeyId]))[preKeyId]!;
        await repository.injectE2ESession({
          jid: doraJid,
          session: {
            ...dora.bundle,
            preKey: { keyId: 92 + i, publicKey: generateSignalPubKey(preKey.public) },
          },
        });
        await repository.injectE2ESession({ jid: phoneJid, session: phone.bundle });
        return { writes, keys, repository, phoneJid };
      }),
    );
    const sendAll = (text: string) =>
      Promise.all(
        senders.map(({ keys, repository, phoneJid }) =>
          keys.transaction(
            () =>
              Promise.all(
                [doraJid, phoneJid].map((jid) => repository.encryptMessage({ jid, data: Buffer.from(text) })),
              ),
            'me',
          ),
        ),
      );
    await sendAll('first');
    for (const { writes } of senders) writes.length = 0;

    for (const round of ['one', 'two', 'three']) await sendAll(round);

    for (const [i, { writes }] of senders.entries()) {
      expect(writes.map((changes) => changes.map((change) => change.keyId).sort())).toEqual(
        Array.from({ length: 3 }, () => ['255700000900.0', `25570000099${i}.0`]),
      );
    }
  }, 30_000);

  it('a change made after the stored-ahead value is still written by the commit', async () => {
    const ref = await account.session('de-later', { state: 'starting', ownerToken: TOKEN });
    await PostgresAuthState.fresh(options(ref));
    const writes: CredentialItemChange[][] = [];
    const auth = await PostgresAuthState.load(options(ref, { store: notingWrites(writes) }));
    const ahead = Buffer.from('ratchet-1');
    const later = Buffer.from('ratchet-2');
    await auth.storeAhead({ session: { '255700000401.0': ahead } });
    // Baileys' commit carries the newer value of the same item, and the unchanged one again.
    await auth.state.keys.set({ session: { '255700000401.0': later } });
    await auth.state.keys.set({ session: { '255700000401.0': later } });
    expect(writes).toHaveLength(3);
    const stored = await store.read(ref, 'session', ['255700000401.0']);
    expect(stored.size).toBe(1);
    const reloaded = await PostgresAuthState.load(options(ref));
    const value = (await reloaded.state.keys.get('session', ['255700000401.0']))['255700000401.0'];
    expect(Buffer.from(value!).toString()).toBe('ratchet-2');
  });
});
