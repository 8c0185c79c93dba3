import { AsyncLocalStorage } from 'node:async_hooks';

/** Every slotted storage's current store, by storage: one map per async context. */
type Slots = ReadonlyMap<SlottedAsyncLocalStorage<unknown>, unknown>;

/** The one real storage all slotted storages share. */
const carrier = new AsyncLocalStorage<Slots>();

/**
 * An AsyncLocalStorage that keeps its store in its own slot of one process-wide storage, so making
 * many of them costs Node nothing more than making one.
 *
 * Why: on Node 20 every AsyncLocalStorage that has run once is kept in a list inside
 * `node:async_hooks` until it is disabled, and that whole list is walked for every promise, timer
 * and socket the process creates. Baileys makes one per socket and never disables it (its
 * `addTransactionCapability`, Baileys issue #2806), so a worker that has opened a thousand
 * connections paid ~100 µs on every `await` (measured: 0.08 µs with none, 13 µs with 100, 102 µs
 * with 1,000), and linking or restoring hundreds of sessions slowed down as the count grew.
 * Stores stay separate per storage exactly as with real instances: each `run` copies the outer
 * context's slots and sets its own.
 */
export class SlottedAsyncLocalStorage<T> extends AsyncLocalStorage<T> {
  private disabled = false;

  override getStore(): T | undefined {
    if (this.disabled) return undefined;
    return carrier.getStore()?.get(this as SlottedAsyncLocalStorage<unknown>) as T | undefined;
  }

  override run<R>(store: T, callback: () => R): R;
  override run<R, TArgs extends unknown[]>(store: T, callback: (...args: TArgs) => R, ...args: TArgs): R;
  override run<R, TArgs extends unknown[]>(store: T, callback: (...args: TArgs) => R, ...args: TArgs): R {
    this.disabled = false;
    return carrier.run(this.slotsWith(store), callback, ...args);
  }

  override exit<R, TArgs extends unknown[]>(callback: (...args: TArgs) => R, ...args: TArgs): R {
    const outer = carrier.getStore();
    if (!outer?.has(this as SlottedAsyncLocalStorage<unknown>)) return callback(...args);
    const slots = new Map(outer);
    slots.delete(this as SlottedAsyncLocalStorage<unknown>);
    return carrier.run(slots, callback, ...args);
  }

  override enterWith(store: T): void {
    this.disabled = false;
    carrier.enterWith(this.slotsWith(store));
  }

  /** As Node's: `getStore` answers undefined until the next `run` or `enterWith`. */
  override disable(): void {
    this.disabled = true;
  }

  private slotsWith(store: T): Slots {
    const slots = new Map(carrier.getStore());
    slots.set(this as SlottedAsyncLocalStorage<unknown>, store);
    return slots;
  }
}
