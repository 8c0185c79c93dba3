import type { SignalKeyStoreWithTransaction, SocketConfig } from '@whiskeysockets/baileys';

type MakeSignalRepository = SocketConfig['makeSignalRepository'];

/**
 * The repository `make` makes, each pairwise decryption run in the session's send transaction: it
 * waits for a send under way, and a send waits for it.
 *
 * Why: Baileys (7.0.0-rc14) runs a whole send in one key transaction keyed by the account's own
 * JID (`Socket/messages-send.js` relayMessage, `}, meId)`), and each decryption in one keyed by
 * the sender's (`Signal/libsignal.js` decryptMessage). Each transaction reads a Signal session
 * into a cache of its own and writes the whole record back. So a send to a contact that runs
 * while a message from that contact is decrypted (after every reconnect: the unacknowledged sends
 * go out again while the backlog is decrypted) encrypts from the record as it was before the
 * decryption's ratchet step, and one of the two writes undoes the other. The contact's phone then
 * fails every later message with `Bad MAC` (the fault schedule's seed 61: the sends resent after a
 * keep-alive silence, and two retries, all undecryptable by the contact; seeds 8 and 49 before).
 * Under the same key the two take turns, and each reads what the other wrote.
 *
 * Before the account is known (`creds.me`, a first login), decryptions run as Baileys runs them.
 */
export function decryptionsBesideSends(make: MakeSignalRepository): MakeSignalRepository {
  return (auth, logger, pnToLIDFunc) => {
    const repository = make(auth, logger, pnToLIDFunc);
    const keys = auth.keys as SignalKeyStoreWithTransaction;
    return {
      ...repository,
      decryptMessage: (opts) => {
        // Baileys hands its full credentials (SignalCreds is their Signal part), `me` set at login.
        const sendKey = (auth.creds as { me?: { id?: string } }).me?.id;
        if (sendKey === undefined) return repository.decryptMessage(opts);
        return keys.transaction(() => repository.decryptMessage(opts), sendKey);
      },
    };
  };
}
