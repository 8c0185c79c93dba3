import type { SessionRef } from '../session-ref';

/**
 * Where the driver keeps received messages until the event stream has them: `inbound_outbox`
 * through InboundOutboxRepository of @jumbe/persistence. Values arrive sealed.
 */
export interface InboundOutbox {
  /**
   * `quote`: the sealed copy a reply may quote (QuoteArchive.sealReceived), stored with the
   * message in the same write (`received_messages`).
   */
  add(ref: SessionRef, messageId: string, value: Buffer, quote?: Buffer): Promise<void>;
  oldest(ref: SessionRef, limit: number): Promise<{ messageId: string; value: Buffer }[]>;
  /** Removes delivered messages (a batch at a time: one write, not one per message). */
  remove(ref: SessionRef, messageIds: readonly string[]): Promise<void>;
}

/**
 * The outbox of a driver without a database (tests, tools): in this process only, so it loses
 * what a crash interrupts. Never bounded by dropping: a message leaves only once delivered.
 */
export class ProcessInboundOutbox implements InboundOutbox {
  private readonly entries = new Map<string, Map<string, Buffer>>();

  /** Quotes are not kept here: without a database, the session's memory of recent ones serves. */
  async add(ref: SessionRef, messageId: string, value: Buffer, _quote?: Buffer): Promise<void> {
    const session = this.session(ref);
    if (!session.has(messageId)) session.set(messageId, value);
  }

  async oldest(ref: SessionRef, limit: number): Promise<{ messageId: string; value: Buffer }[]> {
    return [...this.session(ref)].slice(0, limit).map(([messageId, value]) => ({ messageId, value }));
  }

  async remove(ref: SessionRef, messageIds: readonly string[]): Promise<void> {
    const session = this.session(ref);
    for (const messageId of messageIds) session.delete(messageId);
  }

  private session(ref: SessionRef): Map<string, Buffer> {
    const key = `${ref.accountId}/${ref.sessionId}`;
    let session = this.entries.get(key);
    if (!session) {
      session = new Map();
      this.entries.set(key, session);
    }
    return session;
  }
}
