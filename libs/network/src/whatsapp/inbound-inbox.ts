import { parseStoredInboundMessage, storedInboundMessageJson } from '@jumbe/contracts';
import { type InboundNetworkMessage, inboundMessageBinding, type SecretBox } from '@jumbe/domain';
import type { Logger } from 'pino';
import type { SessionRef } from '../session-ref';
import type { ArrivalKey, InboundOutbox, OutboxEntry, PendingArrivals } from './inbound-outbox';
import type { SessionMemory } from './session-memory';

/** Messages read from the outbox per round trip. */
const BATCH = 50;

/** How one read of the outbox is made and judged (InboundInbox.deliver asks before each read). */
export interface OutboxReading {
  /**
   * Whether a message the read returned may be handed on now (one `resendAwaitedUntil` holds a
   * place: InboundOutbox.awaitResend). Judged by what was awaited when the read started too: a
   * message stored meanwhile is not in the read, and must not be overtaken.
   */
  publishable(arrival: ArrivalKey, resendAwaitedUntil?: number): boolean;
  /** The current socket: the pending arrivals are read on it (InboundOutbox.oldest). */
  carriedTo?: { socket: number; pending: PendingArrivals };
}

const EVERYTHING_PUBLISHABLE: OutboxReading = { publishable: () => true };

/**
 * One session's received messages on their way to the event stream. Baileys has already told
 * WhatsApp they arrived, so each is sealed into the durable outbox as soon as Baileys emits it
 * (`keep`), and leaves it only after `onInbound` accepted it (`deliver`), in arrival order. Whatever a crash, SIGKILL or
 * hand-over interrupts is still in the outbox for the session's next owner; nothing is dropped
 * for lack of room (the queue lives in PostgreSQL, not in memory).
 */
export class InboundInbox {
  constructor(
    private readonly ref: SessionRef,
    private readonly outbox: InboundOutbox,
    private readonly cipher: SecretBox,
    private readonly memory: SessionMemory,
    private readonly logger: Pick<Logger, 'error' | 'debug'>,
  ) {}

  /**
   * Stores a received message (once per id; one already delivered is ignored), with `quote`, its
   * sealed quotable copy, in the same write; `arrival`: its place in the order handed on.
   */
  async keep(message: InboundNetworkMessage, quote?: Buffer, arrival?: ArrivalKey): Promise<void> {
    if (this.memory.delivered.has(message.id)) return;
    const sealed = this.cipher.sealBytes(
      Buffer.from(storedInboundMessageJson(message), 'utf8'),
      this.boundTo(message.id),
    );
    await this.outbox.add(this.ref, message.id, sealed, quote, arrival);
  }

  /**
   * Holds `arrival`'s place until `until` (epoch ms) for message `messageId`, which Baileys could
   * not decrypt and asked its sender for again: the copy sent back, kept under the same id, takes
   * it on whichever socket or owner it arrives, and what arrived after it waits for it
   * (InboundOutbox.awaitResend). The placeholder is sealed like a message, so a secret-key
   * rotation re-seals it as it does the rest.
   */
  async awaitResend(messageId: string, arrival: ArrivalKey, until: number): Promise<void> {
    if (this.memory.delivered.has(messageId)) return;
    const sealed = this.cipher.sealBytes(Buffer.alloc(0), this.boundTo(messageId));
    await this.outbox.awaitResend(this.ref, messageId, sealed, arrival, until);
  }

  /**
   * Hands waiting messages to `onInbound` in order; those accepted leave the outbox together, in
   * one write per batch (also when a later one is refused or the session stops). False when one
   * was refused or the outbox could not be read (the caller retries later); true when it is
   * drained, asked to stop, or at a message not `publishable` yet (one that may still have an
   * earlier arrival to wait for: whoever decides that kicks another round when it changes).
   *
   * A batch shorter than BATCH drained the outbox: a message stored after it was read kicks
   * another round (InboundRedelivery), so the extra read that would find the outbox empty is
   * not made (issue 32: a round trip per drain).
   *
   * `reading` is asked right before each read of the outbox (OutboxReading): what it returns
   * judges that read's messages.
   *
   * A place held for a message asked for again (`awaitResend`) is `publishable` once that message
   * is no longer awaited: it is then forgotten, and what came after it goes on.
   */
  async deliver(
    onInbound: (message: InboundNetworkMessage) => Promise<void>,
    stopped: () => boolean,
    reading: () => OutboxReading = () => EVERYTHING_PUBLISHABLE,
  ): Promise<boolean> {
    for (;;) {
      const { publishable, carriedTo } = reading();
      const batch = await this.outbox.oldest(this.ref, BATCH, carriedTo?.socket, carriedTo?.pending);
      if (batch.length === 0) return true;
      const held = batch.findIndex((entry) => !publishable(entry.arrival, entry.resendAwaitedUntil));
      const ready = held === -1 ? batch : batch.slice(0, held);
      const accepted: string[] = [];
      const forgotten: string[] = [];
      try {
        for (const entry of ready) {
          if (stopped()) return true;
          if (entry.resendAwaitedUntil !== undefined) forgotten.push(entry.messageId);
          else {
            await this.handOver(entry, onInbound);
            accepted.push(entry.messageId);
          }
        }
      } finally {
        await this.outbox.remove(this.ref, accepted);
        await this.outbox.forgetAwaited(this.ref, forgotten);
      }
      if (held !== -1 || batch.length < BATCH) return true;
    }
  }

  /**
   * `socket`'s backlog is complete: the pending arrivals stored so far (its own and earlier
   * sockets') take their places for good (InboundOutbox.settlePending).
   */
  settlePending(socket: number, pending: PendingArrivals): Promise<void> {
    return this.outbox.settlePending(this.ref, socket, pending);
  }

  /** One stored message to `onInbound`, unless this process delivered it already. */
  private async handOver(
    entry: OutboxEntry,
    onInbound: (message: InboundNetworkMessage) => Promise<void>,
  ): Promise<void> {
    if (this.memory.delivered.has(entry.messageId)) return;
    const message = this.openOrNull(entry.messageId, entry.value);
    // Refused by the stream (a dependency down): it throws, stays stored and is tried again later.
    if (message) await onInbound(message);
    this.memory.delivered.set(entry.messageId, true);
    this.logger.debug({ messageId: entry.messageId, ...entry.arrival }, 'inbound handed on');
  }

  /**
   * The stored message, or null when it can never be opened (sealed under another secret key, or
   * damaged) or is not a received message (its JSON fails the schema: a bad row): retrying could
   * not help, so it is set aside, loudly, instead of holding up every later message of the
   * session for good.
   */
  private openOrNull(messageId: string, sealed: Buffer): InboundNetworkMessage | null {
    try {
      return this.open(messageId, sealed);
    } catch (error) {
      this.logger.error(
        { err: error, messageId, sessionId: this.ref.sessionId },
        'a received message could not be opened or read and was set aside (was JUMBE_SECRET_KEY changed?)',
      );
      return null;
    }
  }

  private open(messageId: string, sealed: Buffer): InboundNetworkMessage {
    return parseStoredInboundMessage(this.cipher.openBytes(sealed, this.boundTo(messageId)).toString('utf8'));
  }

  /** Associated data: a sealed message only opens for the session and id it was stored under. */
  private boundTo(messageId: string): string {
    return inboundMessageBinding(this.ref, messageId);
  }
}
