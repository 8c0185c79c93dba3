import type { WAMessage } from '@whiskeysockets/baileys';

/**
 * Hands a socket's received messages on in the order their stanzas arrived.
 *
 * Baileys (7.0.0-rc14) processes the offline backlog in a queue of its own, one stanza after the
 * other, while a live stanza is processed at once (`messages-recv.js` processNode, and
 * `Utils/offline-node-processor.js`); and it awaits key-store work (the LID mapping, a session
 * move, every key read while PostgreSQL is slow) before it takes its message lock. So a message
 * a contact sent right after the device came back could be emitted before the one it sent while
 * the device was away (the fault schedule's `outOfOrder`, after every reconnect). Here each
 * message stanza is noted as it arrives (`arrived`, from the raw connection, before Baileys has
 * emitted anything for it) and a message Baileys emits waits until every stanza that arrived
 * before it has been emitted too, or has waited `maxWaitMs` (a stanza that never becomes a
 * message: a status broadcast Baileys ignores, a failure), then goes on in arrival order.
 *
 * A live stanza that arrives while the socket's offline backlog is still coming in (WhatsApp
 * hands the backlog over in batches the device asks for, after `offline_preview`, and ends it
 * with `<ib><offline>`) counts as arriving after the whole backlog: it was sent later than
 * anything queued for the device while it was away.
 */
export class ArrivalOrder {
  /** Message ids in arrival order, not handed on yet. */
  private readonly queue: string[] = [];
  private readonly arrivedAt = new Map<string, number>();
  /** Emitted by Baileys, waiting for earlier arrivals. */
  private readonly ready = new Map<string, WAMessage>();
  /** Live arrivals while the backlog is still coming in: queued once it is complete. */
  private readonly afterBacklog: string[] = [];
  private backlogComplete = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly handOn: (messages: WAMessage[]) => void,
    private readonly maxWaitMs: number,
  ) {}

  /** A message stanza arrived on the socket; `offline`: part of the backlog. */
  arrived(id: string | undefined, offline: boolean): void {
    if (!id || this.arrivedAt.has(id)) return;
    this.arrivedAt.set(id, Date.now());
    if (!offline && !this.backlogComplete) this.afterBacklog.push(id);
    else this.queue.push(id);
    this.scheduleRelease();
  }

  /** The server's `<ib><offline>`: the backlog has all arrived; live arrivals held queue after it. */
  backlogArrived(): void {
    if (this.backlogComplete) return;
    this.backlogComplete = true;
    this.queue.push(...this.afterBacklog.splice(0));
    this.release([]);
  }

  /** Baileys emitted these; they go on once every earlier arrival has. */
  emitted(messages: WAMessage[]): void {
    // Not from a stanza seen here (a resent placeholder, a message Baileys made up): at once.
    const unknown: WAMessage[] = [];
    for (const message of messages) {
      const id = message.key?.id;
      if (id && this.arrivedAt.has(id)) this.ready.set(id, message);
      else unknown.push(message);
    }
    this.release(unknown);
  }

  /** The socket ended: what was emitted goes on, in arrival order; nothing more is awaited. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const out = [...this.queue, ...this.afterBacklog.splice(0)].flatMap((id) => {
      const message = this.ready.get(id);
      return message ? [message] : [];
    });
    this.queue.length = 0;
    this.arrivedAt.clear();
    this.ready.clear();
    if (out.length > 0) this.handOn(out);
  }

  private release(first: WAMessage[]): void {
    const out = [...first];
    const now = Date.now();
    for (let head = this.queue[0]; head !== undefined; head = this.queue[0]) {
      const message = this.ready.get(head);
      if (message) out.push(message);
      else if (now - (this.arrivedAt.get(head) ?? now) < this.maxWaitMs) break;
      this.queue.shift();
      this.arrivedAt.delete(head);
      this.ready.delete(head);
    }
    if (out.length > 0) this.handOn(out);
    this.scheduleRelease();
  }

  /**
   * While something waits (behind a missing arrival, or for the backlog's end), looks again when
   * that wait is over; a backlog that never ends is taken as ended after `maxWaitMs`.
   */
  private scheduleRelease(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const deferred = this.afterBacklog[0];
    if (deferred !== undefined) {
      const waited = Date.now() - (this.arrivedAt.get(deferred) ?? Date.now());
      this.timer = setTimeout(() => this.backlogArrived(), Math.max(0, this.maxWaitMs - waited)).unref();
      return;
    }
    const head = this.queue[0];
    if (head === undefined || this.ready.size === 0) return;
    const waited = Date.now() - (this.arrivedAt.get(head) ?? Date.now());
    this.timer = setTimeout(() => this.release([]), Math.max(0, this.maxWaitMs - waited)).unref();
  }
}
