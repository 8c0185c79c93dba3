import { AsyncLocalStorage } from 'node:async_hooks';
import { addTransactionCapability, type SignalDataSet, type SignalKeyStore } from '@whiskeysockets/baileys';
import { SlottedAsyncLocalStorage } from './slotted-async-local-storage';
import { withSlottedAsyncStorage } from './with-slotted-async-storage';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SlottedAsyncLocalStorage', () => {
  it('keeps each storage its own store, through awaits, nested runs and exit', async () => {
    const first = new SlottedAsyncLocalStorage<string>();
    const second = new SlottedAsyncLocalStorage<string>();
    expect(first.getStore()).toBeUndefined();
    await first.run('a', async () => {
      await tick();
      expect(first.getStore()).toBe('a');
      expect(second.getStore()).toBeUndefined();
      await second.run('b', async () => {
        await tick();
        expect([first.getStore(), second.getStore()]).toEqual(['a', 'b']);
        first.exit(() => expect([first.getStore(), second.getStore()]).toEqual([undefined, 'b']));
        await first.run('a2', async () => expect(first.getStore()).toBe('a2'));
        expect(first.getStore()).toBe('a');
      });
      expect(second.getStore()).toBeUndefined();
    });
    expect(first.getStore()).toBeUndefined();
  });

  it('keeps concurrent contexts apart', async () => {
    const storage = new SlottedAsyncLocalStorage<number>();
    const seen = await Promise.all(
      [1, 2, 3].map((value) =>
        storage.run(value, async () => {
          await tick();
          await tick();
          return storage.getStore();
        }),
      ),
    );
    expect(seen).toEqual([1, 2, 3]);
  });

  it('answers nothing after disable, until it runs again', () => {
    const storage = new SlottedAsyncLocalStorage<string>();
    storage.run('a', () => {
      storage.disable();
      expect(storage.getStore()).toBeUndefined();
      storage.run('b', () => expect(storage.getStore()).toBe('b'));
    });
  });
});

describe('withSlottedAsyncStorage', () => {
  const asyncHooks = () => process.getBuiltinModule('node:async_hooks');

  it('gives what it builds slotted storages, and the real class back after, even when it throws', () => {
    const made = withSlottedAsyncStorage(() => new (asyncHooks().AsyncLocalStorage)());
    expect(made).toBeInstanceOf(SlottedAsyncLocalStorage);
    expect(made).toBeInstanceOf(AsyncLocalStorage);
    expect(asyncHooks().AsyncLocalStorage).toBe(AsyncLocalStorage);
    expect(() =>
      withSlottedAsyncStorage(() => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(asyncHooks().AsyncLocalStorage).toBe(AsyncLocalStorage);
  });

  it("runs Baileys' key-store transactions in slotted storage, two stores' transactions apart", async () => {
    const logger = {
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    };
    const memoryStore = () => {
      const items = new Map<string, unknown>();
      const store: SignalKeyStore = {
        get: async (type, ids) =>
          Object.fromEntries(
            ids.flatMap((id) => (items.has(`${type}.${id}`) ? [[id, items.get(`${type}.${id}`)]] : [])),
          ) as never,
        set: async (data: SignalDataSet) => {
          for (const [type, entries] of Object.entries(data)) {
            for (const [id, value] of Object.entries(entries ?? {})) items.set(`${type}.${id}`, value);
          }
        },
      };
      return { items, store };
    };
    const options = { maxCommitRetries: 1, delayBetweenTriesMs: 1 };
    const a = memoryStore();
    const b = memoryStore();
    const runs = jest.spyOn(SlottedAsyncLocalStorage.prototype, 'run');
    const keysA = withSlottedAsyncStorage(() => addTransactionCapability(a.store, logger as never, options));
    const keysB = withSlottedAsyncStorage(() => addTransactionCapability(b.store, logger as never, options));

    await keysA.transaction(async () => {
      await keysA.set({ session: { n: Buffer.from('A') } });
      await keysB.transaction(async () => {
        await keysB.set({ session: { n: Buffer.from('B') } });
      }, 'b');
      // B committed its own transaction; A's write is still held in A's transaction.
      expect(b.items.get('session.n')).toEqual(Buffer.from('B'));
      expect(a.items.has('session.n')).toBe(false);
      expect((await keysA.get('session', ['n'])).n).toEqual(Buffer.from('A'));
    }, 'a');
    expect(a.items.get('session.n')).toEqual(Buffer.from('A'));
    expect(runs).toHaveBeenCalledTimes(2);
    runs.mockRestore();
  });
});
