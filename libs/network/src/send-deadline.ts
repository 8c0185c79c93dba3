import { SlottedAsyncLocalStorage } from './whatsapp/slotted-async-local-storage';

/** The send under way in this async context: by when it must have left, and what left so far. */
interface SendWindow {
  /** Milliseconds since the epoch. */
  readonly deadline: number;
  /** Frames written to the network for this send (queries, then the message's stanza). */
  framesOut: number;
}

/** One for the process (SlottedAsyncLocalStorage says why that matters). */
const windows = new SlottedAsyncLocalStorage<SendWindow>();

/**
 * Runs `send` with a deadline: the time by which whoever asked for it still waits for the answer
 * (the gateway's own timeout, less the way back). A driver lets nothing of the send leave after it
 * (see `frameMayLeave`), so a caller that gave up (504: outcome unknown) never finds the message
 * delivered after all. Undefined: no deadline (a caller with no time limit).
 */
export function withSendDeadline<T>(deadline: number | undefined, send: () => Promise<T>): Promise<T> {
  if (deadline === undefined) return send();
  return windows.run({ deadline, framesOut: 0 }, send);
}

/** The deadline of the send under way in this async context, if it has one. */
export function sendDeadline(): number | undefined {
  return windows.getStore()?.deadline;
}

/** True if this async context is a send whose deadline has passed. */
export function sendDeadlinePassed(): boolean {
  const window = windows.getStore();
  return window !== undefined && Date.now() >= window.deadline;
}

/**
 * Asked by the driver right before it writes a frame to the network: false once the send under
 * way in this async context is past its deadline (the frame must not leave); true otherwise,
 * counting the frame as gone.
 */
export function frameMayLeave(): boolean {
  const window = windows.getStore();
  if (window === undefined) return true;
  if (Date.now() >= window.deadline) return false;
  window.framesOut += 1;
  return true;
}

/** True if nothing of the send under way in this async context has been written to the network. */
export function nothingLeft(): boolean {
  return (windows.getStore()?.framesOut ?? 0) === 0;
}
