import { frameMayLeave } from '../send-deadline';
import type { WhatsAppSocket } from './whatsapp-socket';

/**
 * Makes the socket refuse every frame of a send past its deadline (see withSendDeadline).
 *
 * Baileys reads `ws.isOpen` synchronously right before it encrypts and writes a frame, and throws
 * `Connection Closed` when it is false, before the noise counter moves (rc14
 * `Socket/socket.js` sendRawMessage, :58-62): the connection stays usable, and the send fails
 * having sent nothing more. The getter reads the send's deadline from the async context of the
 * call, so frames of anything else on the socket are untouched. False when this Baileys offers no
 * such getter (`deadline-guard.spec.ts` pins it): sends then leave whenever they are ready.
 */
export function guardFramesByDeadline(socket: WhatsAppSocket): boolean {
  const ws = socket.ws as object | undefined;
  const isOpen = ws ? getterOf(ws, 'isOpen') : undefined;
  if (!ws || !isOpen) return false;
  Object.defineProperty(ws, 'isOpen', {
    configurable: true,
    get(this: object): boolean {
      return Boolean(isOpen.call(this)) && frameMayLeave();
    },
  });
  return true;
}

/** The getter `name` of `target` or of a prototype of it. */
function getterOf(target: object, name: string): (() => unknown) | undefined {
  for (let at: object | null = target; at !== null; at = Object.getPrototypeOf(at) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(at, name);
    if (descriptor) return descriptor.get;
  }
  return undefined;
}
