import type { WhatsAppSocket } from './whatsapp-socket';

/**
 * Gets messages out of Baileys' event buffer. Baileys (7.0.0-rc14) receipts what arrives while
 * the device was offline and holds the `messages.upsert` in its buffer until the server's
 * `<ib><offline>` (Socket/socket.js); when a socket ends it emits `close` and then destroys the
 * buffer with what it holds (`ev.destroy()`). Those messages were already receipted: WhatsApp
 * will not send them again. So:
 * - `drain()` emits what is held; the session calls it before it lets go of a socket (in its
 *   `close` handler, which Baileys calls before `ev.destroy()`, and before a planned close);
 * - while the socket lives, a buffer found holding at two ticks in a row is flushed. This bounds
 *   how long a receipted message waits outside the durable outbox (a SIGKILL mid-backlog loses
 *   what is held), and works around an rc14 defect: after a buffered function flushed inside
 *   itself, a stale `flushPendingTimeout` keeps later offline-path upserts waiting for the 30 s
 *   auto-flush (Utils/event-buffer.js). Flushing early only gives up Baileys' merging of chat and
 *   contact events, which the gateway does not keep.
 * `event-buffer-drain.spec.ts` pins the Baileys behaviour this relies on.
 */
export class EventBufferDrain {
  private timer: NodeJS.Timeout | undefined;
  private heldAtLastTick = false;

  private constructor(private readonly socket: WhatsAppSocket) {}

  /** `intervalMs` 0: no periodic flush (only `drain`). */
  static attach(socket: WhatsAppSocket, intervalMs: number): EventBufferDrain {
    const drain = new EventBufferDrain(socket);
    if (intervalMs > 0 && socket.ev.isBuffering) {
      drain.timer = setInterval(() => drain.tick(), intervalMs).unref();
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
