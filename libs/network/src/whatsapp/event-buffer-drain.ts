import type { BaileysEventMap } from '@whiskeysockets/baileys';
import type { WhatsAppSocket } from './whatsapp-socket';

/**
 * Gets messages out of Baileys' event buffer. Baileys (7.0.0-rc14) receipts what arrives while
 * the device was offline and holds the `messages.upsert` in its buffer until the server's
 * `<ib><offline>` (Socket/socket.js); when a socket ends it emits `close` and then destroys the
 * buffer with what it holds (`ev.destroy()`). Those messages were already receipted: WhatsApp
 * will not send them again. So:
 * - `drain()` emits what is held; the session calls it before it lets go of a socket (in its
 *   `close` handler, which Baileys calls before `ev.destroy()`, and before a planned close);
 * - a `messages.upsert` Baileys buffers is flushed at once (`ev.emit` is looked up on the buffer
 *   object by every Baileys caller, so wrapping it reaches them all): a message it receipted goes
 *   to the durable outbox within milliseconds, not when the backlog ends. The fault schedule's
 *   seed 43 lost 93 messages to a SIGKILL 1.2 s into a backlog: Baileys had receipted them and held
 *   them in this buffer (and the tick below flushes a buffer only after two ticks);
 * - while the socket lives, a buffer found holding at two ticks in a row is flushed (what else it
 *   holds), and works around an rc14 defect: after a buffered function flushed inside
 *   itself, a stale `flushPendingTimeout` keeps later buffered events waiting for the 30 s
 *   auto-flush (Utils/event-buffer.js). Flushing early only gives up Baileys' merging of chat and
 *   contact events, which the gateway does not keep.
 * `event-buffer-drain.spec.ts` pins the Baileys behaviour this relies on.
 */
export class EventBufferDrain {
  private timer: NodeJS.Timeout | undefined;
  private heldAtLastTick = false;

  private constructor(private readonly socket: WhatsAppSocket) {}

  /** `intervalMs` 0: neither the periodic flush nor the upserts' (only `drain`: tests of it). */
  static attach(socket: WhatsAppSocket, intervalMs: number): EventBufferDrain {
    const drain = new EventBufferDrain(socket);
    if (intervalMs > 0 && socket.ev.isBuffering) {
      drain.timer = setInterval(() => drain.tick(), intervalMs).unref();
      drain.flushUpsertsAtOnce();
    }
    return drain;
  }

  /** Emits whatever Baileys holds now (its listeners see it synchronously). */
  drain(): void {
    try {
      this.socket.ev.flush?.();
    } catch {
      // A destroyed buffer holds nothing.
    }
  }

  /**
   * Emits a buffered `messages.upsert` as soon as Baileys buffers it: by then Baileys has sent its
   * receipt (`handleMessage`: decrypt, receipt, ack, then the upsert), so until the outbox has it
   * nobody else does.
   */
  private flushUpsertsAtOnce(): void {
    const ev = this.socket.ev;
    const { emit, isBuffering } = ev;
    if (typeof emit !== 'function' || typeof isBuffering !== 'function') return;
    ev.emit = <E extends keyof BaileysEventMap>(event: E, arg: BaileysEventMap[E]): boolean => {
      const emitted = emit.call(ev, event, arg);
      if (event === 'messages.upsert' && isBuffering.call(ev)) this.drain();
      return emitted;
    };
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    const holding = this.socket.ev.isBuffering?.() ?? false;
    if (holding && this.heldAtLastTick) {
      this.drain();
      this.heldAtLastTick = false;
      return;
    }
    this.heldAtLastTick = holding;
  }
}
