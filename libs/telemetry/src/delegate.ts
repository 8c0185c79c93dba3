/**
 * `target` with some members replaced; every other member is `target`'s own, run on `target`
 * itself. Not `Object.create(target)`: an object that merely inherits runs the target's methods
 * with itself as `this`, so whatever they assign lands on the wrapper while the target goes on
 * unchanged underneath (a network session's `close()` marked the wrapper ended and left the
 * session connected in its driver), and whatever they hand out as `this` is not what its owner
 * holds. Reads of replaced members cost a Map lookup (tens of nanoseconds).
 */
export function delegateTo<T extends object>(target: T, replaced: Record<string, unknown>): T {
  const overrides = new Map<PropertyKey, unknown>(Object.entries(replaced));
  return new Proxy(target, {
    get(object, property) {
      if (overrides.has(property)) return overrides.get(property);
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
    set: (object, property, value) => Reflect.set(object, property, value, object),
  });
}
