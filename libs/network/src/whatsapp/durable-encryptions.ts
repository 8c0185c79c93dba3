import { AsyncLocalStorage } from 'node:async_hooks';
import {
  DEFAULT_CONNECTION_CONFIG,
  type SignalDataSet,
  type SignalKeyStoreWithTransaction,
  type SocketConfig,
} from '@whiskeysockets/baileys';
import { runSignalJobsInTheirContext } from './signal-jobs-in-context';
import { TurnBatch } from './turn-batch';

type MakeSignalRepository = SocketConfig['makeSignalRepository'];

/** Where an encryption's changes are stored before its transaction commits (PostgresAuthState). */
export interface AheadStore {
  storeAhead(data: SignalDataSet): Promise<void>;
}

/** What one encryption changed, and whose key store (whose session) it runs on. */
interface EncryptionChanges {
  store: SignalKeyStoreWithTransaction;
  made: SignalDataSet[];
}

/**
 * The key changes made by the encryption under way in this async context. One for the process,
 * made when this module loads (not per socket: SlottedAsyncLocalStorage says why that matters).
 */
const changes = new AsyncLocalStorage<EncryptionChanges>();

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
 * The transaction still commits the same values afterwards; the store leaves those out (they are
 * stored already: PostgresAuthState.storeAhead).
 *
 * The encryptions of one send (each device of the contact, and our own other devices) finish in the
 * same event-loop turn when their sessions are cached: their changes are stored together, one fenced
 * write for the send (TurnBatch). The order stays safe: an encryption hands its ciphertext back
 * only once the write carrying its changes has committed, and the stanza is built from every
 * ciphertext, so it cannot leave before all of them are durable. A failed or fenced write fails
 * every encryption of its batch: the send fails and nothing goes out.
 */
export function durableEncryptions(durable: AheadStore): MakeSignalRepository {
  // A session's encryption queued behind another session's on the same contact runs in its own
  // context, so its changes join its own send's write (signal-jobs-in-context.ts).
  runSignalJobsInTheirContext();
  return (auth, logger, pnToLIDFunc) => {
    const keys = auth.keys as SignalKeyStoreWithTransaction;
    const tracked: SignalKeyStoreWithTransaction = {
      ...keys,
      set: async (data) => {
        // Only this session's own encryption takes the change: libsignal runs all work on one
        // address (a contact) in one process-wide queue, and a job that does not run in its own
        // async context (SessionBuilder's, which runSignalJobsInTheirContext leaves as they are)
        // runs in that of the job that started the queue, maybe another session's. Such a change
        // is not in a transaction of this session, so Baileys writes it here before the job goes on.
        const under = changes.getStore();
        if (under?.store === keys) under.made.push(data);
        await keys.set(data);
      },
    };
    const repository = DEFAULT_CONNECTION_CONFIG.makeSignalRepository(
      { ...auth, keys: tracked },
      logger,
      pnToLIDFunc,
    );
    // One per socket: a batch never mixes two sessions (each has its own fencing token).
    const ahead = new TurnBatch<SignalDataSet>((sets) => durable.storeAhead(merged(sets)));
    const storedFirst = async <T>(encrypt: () => Promise<T>): Promise<T> => {
      // Outside an enclosing transaction, Baileys commits the encryption's own before returning.
      if (!keys.isInTransaction?.()) return encrypt();
      const made: SignalDataSet[] = [];
      const result = await changes.run({ store: keys, made }, encrypt);
      if (made.length > 0) await ahead.add(made);
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
