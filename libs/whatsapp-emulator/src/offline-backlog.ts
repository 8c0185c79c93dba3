import type { BinaryNode } from '@whiskeysockets/baileys';
import type { EmulatedConnection } from './emulator';
import { child } from './iq-nodes';

/** What replaying a backlog needs from the network. */
export interface BacklogDelivery {
  /** Hands one stanza to the connection and keeps it until the device answers it. */
  deliver(stanza: BinaryNode): void;
  /** True while the device has not answered (receipt or ack) this message id. */
  unanswered(id: string): boolean;
  /** Waits until the network's `<ib><offline>` hold (if any) is released. */
  completionAllowed(): Promise<void>;
  /** The server's own cap on a batch (the device asks for a size; the smaller one wins). */
  readonly batchLimit: number;
}

/**
 * How a device that logs in gets what waited for it, as WhatsApp seems to send it: an
 * `<ib><offline_preview>` with the counts, then, once the device asked for them
 * (`<ib><offline_batch count>`; Baileys asks for 100), the stanzas in batches of that size, the
 * next batch once the device answered the previous one, and `<ib><offline count>` only after the
 * last batch was answered. Baileys holds the `messages.upsert` of offline stanzas in its event
 * buffer until that `<ib><offline>`: the window issue 28 is about.
 */
export class OfflineBacklogReplay {
  private remaining: BinaryNode[];
  private batchSize = 0;
  private inFlight: string[] = [];
  private closed = false;
  private completed = false;
  private sentCount = 0;

  constructor(
    private readonly connection: EmulatedConnection,
    backlog: BinaryNode[],
    private readonly delivery: BacklogDelivery,
  ) {
    this.remaining = backlog;
  }

  /** True while stanzas are still waiting to be sent: what the server takes now queues behind them. */
  get sending(): boolean {
    return !this.closed && this.remaining.length > 0;
  }

  /** A stanza the server took while this backlog is still being sent: it goes out after the rest. */
  enqueue(stanza: BinaryNode): void {
    this.remaining.push(stanza);
  }

  /** Stanzas never sent on this connection (for the device's next login); the replay stops. */
  takeUnsent(): BinaryNode[] {
    this.closed = true;
    return this.remaining.splice(0);
  }

  start(): void {
    const total = this.remaining.length;
    if (total === 0) {
      void this.complete(0);
      return;
    }
    const messages = this.remaining.filter((stanza) => stanza.tag === 'message').length;
    this.connection.send({
      tag: 'ib',
      attrs: {},
      content: [
        {
          tag: 'offline_preview',
          attrs: {
            count: String(total),
            message: String(messages),
            receipt: '0',
            notification: String(total - messages),
            call: '0',
            appdata: '0',
          },
        },
      ],
    });
  }

  /** A node from the device: its batch request, or an answer that may complete the batch. */
  onDeviceNode(node: BinaryNode): void {
    if (this.closed || this.completed) return;
    const batch = node.tag === 'ib' ? child(node, 'offline_batch') : undefined;
    if (batch) {
      this.batchSize = Math.max(1, Math.min(Number(batch.attrs.count ?? 100), this.delivery.batchLimit));
      if (this.inFlight.length === 0) this.sendBatch();
      return;
    }
    if (this.batchSize > 0 && this.inFlight.length > 0) {
      this.inFlight = this.inFlight.filter((id) => this.delivery.unanswered(id));
      if (this.inFlight.length === 0) this.sendBatch();
    }
  }

  private sendBatch(): void {
    const batch = this.remaining.splice(0, this.batchSize);
    if (batch.length === 0) {
      void this.complete(this.sentCount);
      return;
    }
    this.sentCount += batch.length;
    for (const stanza of batch) this.delivery.deliver(stanza);
    this.inFlight = batch.filter((stanza) => stanza.tag === 'message').map((stanza) => stanza.attrs.id ?? '');
    // Stanzas nobody answers (not messages) do not hold the next batch back.
    if (this.inFlight.length === 0) this.sendBatch();
  }

  private async complete(count: number): Promise<void> {
    this.completed = true;
    await this.delivery.completionAllowed();
    if (this.closed) return;
    this.connection.send({
      tag: 'ib',
      attrs: {},
      content: [{ tag: 'offline', attrs: { count: String(count) } }],
    });
  }
}
