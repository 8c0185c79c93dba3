import { SpanKind } from '@opentelemetry/api';
import { delegateTo } from './delegate';
import { inSpan, tracingActive } from './spans';

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
    // Tracing off, straight to the session: a no-op span still costs its name, a context switch
    // and an async frame around every send (~1 % of a worker's CPU per send, BENCHMARKS.md).
    const send = (message: { kind: string }) =>
      tracingActive()
        ? inSpan(`network send ${message.kind}`, { kind: SpanKind.CLIENT, attributes }, () =>
            session.send(message),
          )
        : session.send(message);
    return delegateTo(session, { send });
  };
  return delegateTo(driver, { open });
}
