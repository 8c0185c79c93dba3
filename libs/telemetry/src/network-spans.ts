import { SpanKind } from '@opentelemetry/api';
import { inSpan } from './spans';

/** The sending side of a network session, as far as spans are concerned. */
interface SendingSession {
  sendText(message: unknown): Promise<unknown>;
  sendMedia(message: unknown): Promise<unknown>;
  sendInteractive(message: unknown): Promise<unknown>;
}

interface OpeningDriver<S extends SendingSession> {
  open(...args: never[]): Promise<S>;
}

/**
 * A network driver whose sessions' sends are each a client span `network send <kind>` (the
 * worker's call to WhatsApp, or to the sandbox), in the trace of the command that asked for it.
 */
export function observeNetworkDriver<S extends SendingSession, D extends OpeningDriver<S>>(
  driver: D,
  network: string,
): D {
  const attributes = { 'jumbe.network': network };
  const traced = (kind: string, send: (message: unknown) => Promise<unknown>) => (message: unknown) =>
    inSpan(`network send ${kind}`, { kind: SpanKind.CLIENT, attributes }, () => send(message));
  return Object.assign(Object.create(driver) as D, {
    open: async (...args: never[]) => {
      const session = await driver.open(...args);
      return Object.assign(Object.create(session) as S, {
        sendText: traced('text', (message) => session.sendText(message)),
        sendMedia: traced('media', (message) => session.sendMedia(message)),
        sendInteractive: traced('interactive', (message) => session.sendInteractive(message)),
      });
    },
  });
}
