import { SpanKind } from '@opentelemetry/api';
import { inSpan } from './spans';

/** The sending side of a network session, as far as spans are concerned. */
interface SendingSession {
  send(message: { kind: string }): Promise<unknown>;
}

interface OpeningDriver<S extends SendingSession> {
  readonly name: string;
  open(...args: never[]): Promise<S>;
}

/**
 * A network driver whose sessions' sends are each a client span `network send <kind>` (the
 * worker's call to WhatsApp, or to the sandbox), in the trace of the command that asked for it.
 */
export function observeNetworkDriver<S extends SendingSession, D extends OpeningDriver<S>>(driver: D): D {
  const attributes = { 'jumbe.network': driver.name };
  const open = async (...args: never[]) => {
    const session = await driver.open(...args);
    const send = (message: { kind: string }) =>
      inSpan(`network send ${message.kind}`, { kind: SpanKind.CLIENT, attributes }, () =>
        session.send(message),
      );
    return delegateTo(session, { send });
  };
  return delegateTo(driver, { open });
}

/**
 * `target` with some methods replaced. Everything else runs on `target` itself, never on the
 * wrapper: a session's `close()` called on an object that merely inherits from it (what
 * `Object.create` gives) would set `phase = 'ended'` on the wrapper while the session went on
 * as connected underneath, and report the wrapper, not itself, to the driver that has to forget it.
 */
function delegateTo<T extends object>(target: T, replaced: Record<string, unknown>): T {
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
