import {
  addTransactionCapability,
  DEFAULT_CONNECTION_CONFIG,
  initAuthCreds,
  type SignalDataTypeMap,
  type SignalKeyStore,
  type SignalKeyStoreWithTransaction,
  type SocketConfig,
} from '@whiskeysockets/baileys';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { decryptionsBesideSends } from './decryptions-beside-sends';

type MakeSignalRepository = SocketConfig['makeSignalRepository'];
type Repository = ReturnType<MakeSignalRepository>;

const logger = pino({ level: 'silent' });
const ME = '254700000001:7@s.whatsapp.net';
const CONTACT = '254711000001@s.whatsapp.net';

/** A key store in memory, as Baileys wraps it for a socket (its transactions and their caches). */
function transactionalKeys(): SignalKeyStoreWithTransaction {
  const data = new Map<string, unknown>();
  const store: SignalKeyStore = {
    get: async <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) =>
      Object.fromEntries(
        ids.filter((id) => data.has(`${type}/${id}`)).map((id) => [id, data.get(`${type}/${id}`)]),
      ) as { [id: string]: SignalDataTypeMap[T] },
    set: async (changes) => {
      for (const [type, items] of Object.entries(changes))
        for (const [id, value] of Object.entries(items ?? {})) data.set(`${type}/${id}`, value);
    },
  };
  return addTransactionCapability(store, logger, { maxCommitRetries: 1, delayBetweenTriesMs: 1 });
}

/**
 * A repository whose decryption reads the contact's session and writes it back one step on, as
 * libsignal's does (read, ratchet, store the whole record).
 */
const steppingDecryptions: MakeSignalRepository = (auth) => {
  const keys = auth.keys as SignalKeyStoreWithTransaction;
  return {
    decryptMessage: async () => {
      const { [CONTACT]: session } = await keys.get('session', [CONTACT]);
      const step = Number((session as Uint8Array | undefined)?.[0] ?? 0) + 1;
      await keys.set({ session: { [CONTACT]: Uint8Array.of(step) } });
      return Uint8Array.of(step);
    },
  } as unknown as Repository;
};

/** What Baileys' relayMessage does with the same session: read it, wait on the network, write it. */
async function send(keys: SignalKeyStoreWithTransaction, network: Promise<void>): Promise<void> {
  await keys.transaction(async () => {
    const { [CONTACT]: session } = await keys.get('session', [CONTACT]);
    await network;
    const step = Number((session as Uint8Array | undefined)?.[0] ?? 0) + 1;
    await keys.set({ session: { [CONTACT]: Uint8Array.of(step) } });
  }, ME);
}

async function storedStep(keys: SignalKeyStoreWithTransaction): Promise<number> {
  const { [CONTACT]: session } = await keys.get('session', [CONTACT]);
  return Number((session as Uint8Array | undefined)?.[0] ?? 0);
}

describe('decryptionsBesideSends', () => {
  const creds = { ...initAuthCreds(), me: { id: ME, name: 'Duka' } };

  it('runs a decryption after the send under way on the same session, so neither write undoes the other', async () => {
    const keys = transactionalKeys();
    const repository = decryptionsBesideSends(steppingDecryptions)({ creds, keys }, logger, async () => []);
    let release!: () => void;
    const sending = send(keys, new Promise<void>((resolve) => (release = resolve)));
    const decrypting = repository.decryptMessage({ jid: CONTACT, type: 'msg', ciphertext: new Uint8Array() });
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await Promise.all([sending, decrypting]);
    expect(await storedStep(keys)).toBe(2);
  });

  it('is needed: Baileys alone lets the two interleave, and one step is lost', async () => {
    const keys = transactionalKeys();
    const repository = steppingDecryptions({ creds, keys }, logger, async () => []);
    let release!: () => void;
    const sending = send(keys, new Promise<void>((resolve) => (release = resolve)));
    const decrypting = keys.transaction(
      () => repository.decryptMessage({ jid: CONTACT, type: 'msg', ciphertext: new Uint8Array() }),
      CONTACT,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await Promise.all([sending, decrypting]);
    expect(await storedStep(keys)).toBe(1);
  });

  it('leaves decryptions as they are before the account is known (a first login)', async () => {
    const keys = transactionalKeys();
    const repository = decryptionsBesideSends(steppingDecryptions)(
      { creds: initAuthCreds(), keys },
      logger,
      async () => [],
    );
    let release!: () => void;
    const sending = send(keys, new Promise<void>((resolve) => (release = resolve)));
    const decrypted = await repository.decryptMessage({
      jid: CONTACT,
      type: 'msg',
      ciphertext: new Uint8Array(),
    });
    expect(decrypted).toEqual(Uint8Array.of(1));
    release();
    await sending;
  });

  it("pins Baileys: a send's key transaction is keyed by the account's own JID, a decryption's by the sender's", () => {
    const lib = join(require.resolve('@whiskeysockets/baileys'), '..');
    const sends = readFileSync(join(lib, 'Socket', 'messages-send.js'), 'utf8');
    const decryptions = readFileSync(join(lib, 'Signal', 'libsignal.js'), 'utf8');
    expect(sends).toMatch(/const meId = assertMeId\(authState\.creds\);/);
    expect(sends).toMatch(/\n {8}\}, meId\);\n/);
    expect(decryptions).toMatch(/return await doDecrypt\(\);\s*\}, jid\);/);
    // The default repository is Baileys' own (decryptionsBesideSends wraps whatever it is given).
    expect(typeof DEFAULT_CONNECTION_CONFIG.makeSignalRepository).toBe('function');
  });
});
