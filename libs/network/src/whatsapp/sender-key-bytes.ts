import type { SignalDataSet, SignalDataTypeMap, SignalKeyStore } from '@whiskeysockets/baileys';

/** A Buffer as plain `JSON.stringify` writes it: `{"type":"Buffer","data":[1,2,…]}`. */
const ARRAY_BUFFER = /\{"type":"Buffer","data":\[([0-9,]*)\]\}/g;

/**
 * A stored group sender-key record rewritten so Baileys reads every key in it back as a Buffer.
 *
 * Why: rc14 stores a record with plain `JSON.stringify` (`Signal/libsignal.js` storeSenderKey),
 * which writes Buffers as `{type, data: [numbers]}`, and reads it with `BufferJSON.reviver`
 * (`Signal/Group/sender-key-record.js` deserialize), which turns only `{type, data: "base64"}`
 * back into Buffers. The chain key survives (it is passed through `Buffer.from`), but a skipped
 * message key kept for a group message that arrives late (`senderMessageKeys`, used by
 * `removeSenderMessageKey` as it is) comes back as an Object, and libsignal refuses it: "Expected
 * Buffer instead of: Object", and the group message is lost (issue 28: seen in fault runs when a
 * group's messages came out of order around a reconnect). Writing the same Buffers as base64 is
 * what BufferJSON itself does, so the reviver restores them. `sender-key-bytes.spec.ts` pins
 * the defect: it fails once a Baileys upgrade reads its own records back.
 */
export function revivableSenderKey(record: Uint8Array): Buffer {
  const text = Buffer.from(record).toString('utf8');
  if (!text.includes('"data":[')) return Buffer.from(record);
  return Buffer.from(
    text.replace(ARRAY_BUFFER, (_, bytes: string) => {
      const data = bytes === '' ? [] : bytes.split(',').map(Number);
      return JSON.stringify({ type: 'Buffer', data: Buffer.from(data).toString('base64') });
    }),
    'utf8',
  );
}

/**
 * `store` with every group sender-key record written and read in the revivable form (see
 * revivableSenderKey): on the way in, so the cache and PostgreSQL hold it so; on the way out, for
 * records stored before this existed.
 */
export function withRevivableSenderKeys<S extends SignalKeyStore>(store: S): S {
  return {
    ...store,
    async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const found = await store.get(type, ids);
      if (type !== 'sender-key') return found;
      for (const [id, value] of Object.entries(found)) {
        if (value) found[id] = revivableSenderKey(value as Uint8Array) as unknown as SignalDataTypeMap[T];
      }
      return found;
    },
    set(data: SignalDataSet) {
      // Rewritten in place: the set stays the object Baileys made, which the store's own
      // bookkeeping may know it by (postgres-auth-state's writes stored ahead).
      const senderKeys = data['sender-key'];
      for (const [id, value] of Object.entries(senderKeys ?? {})) {
        if (senderKeys && value) senderKeys[id] = revivableSenderKey(value);
      }
      return store.set(data);
    },
  };
}
