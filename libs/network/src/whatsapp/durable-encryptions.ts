import { AsyncLocalStorage } from 'node:async_hooks';
import {
  DEFAULT_CONNECTION_CONFIG,
  type SignalDataSet,
  type SignalKeyStore,
  type SignalKeyStoreWithTransaction,
  type SocketConfig,
} from '@whiskeysockets/baileys';

type MakeSignalRepository = SocketConfig['makeSignalRepository'];

/**
 * The key changes made by the encryption under way in this async context. One for the process,
 * made when this module loads (not per socket: SlottedAsyncLocalStorage says why that matters).
 */
const changes = new AsyncLocalStorage<SignalDataSet[]>();

/**
 * Baileys' own Signal repository, with one change: what an encryption changed (the ratchet step of
 * the session, a session just built from a pre-key bundle, the group's sender key) is stored in
 * `durable` before the ciphertext is handed back.
 *
 * Why: Baileys' relayMessage runs all of a send's encryptions inside one key transaction and sends
 * the stanza from inside it (Socket/messages-send.js:468 and :835); the nested encryptions only
 * record their changes in the transaction (Utils/auth-utils.js:233-236), which commits after the
 * stanza is out (auth-utils.js:250-252). A worker killed in between leaves the next owner a session
 * WhatsApp has moved past: the contact cannot decrypt its next sends (`Bad MAC`, key used already)
 * and it cannot decrypt the contact's replies (`No matching sessions found for message`; issue 28).
 * The transaction still commits the same values afterwards; storing them first only costs a write.
 */
export function durableEncryptions(durable: SignalKeyStore): MakeSignalRepository {
  return (auth, logger, pnToLIDFunc) => {
    const keys = auth.keys as SignalKeyStoreWithTransaction;
    const tracked: SignalKeyStoreWithTransaction = {
      ...keys,
      set: async (data) => {
        changes.getStore()?.push(data);
        await keys.set(data);
      },
    };
    const repository = DEFAULT_CONNECTION_CONFIG.makeSignalRepository(
      { ...auth, keys: tracked },
      logger,
      pnToLIDFunc,
    );
    const storedFirst = async <T>(encrypt: () => Promise<T>): Promise<T> => {
      // Outside an enclosing transaction, Baileys commits the encryption's own before returning.
      if (!keys.isInTransaction?.()) return encrypt();
      const made: SignalDataSet[] = [];
      const result = await changes.run(made, encrypt);
      if (made.length > 0) await durable.set(merged(made));
      return result;
    };
    return {
      ...repository,
      encryptMessage: (args) => storedFirst(() => repository.encryptMessage(args)),
      encryptGroupMessage: (args) => storedFirst(() => repository.encryptGroupMessage(args)),
    };
  };
}

/** The changes as one write, a later value of an item replacing an earlier one. */
function merged(sets: SignalDataSet[]): SignalDataSet {
  const all: Record<string, Record<string, unknown>> = {};
  for (const set of sets) {
    for (const [type, items] of Object.entries(set)) Object.assign((all[type] ??= {}), items);
  }
  return all as SignalDataSet;
}
