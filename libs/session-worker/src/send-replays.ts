import type { SentKey } from '@jumbe/network';
import { LRUCache } from 'lru-cache';

/** Sends remembered per worker: a burst of retries fits, and memory stays bounded (~100 B each). */
const MAX_SENDS = 50_000;
/** As long as the gateway keeps an Idempotency-Key's record: a retry later than that is a new send. */
const KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * The sends this worker made under a send id (`message.send`'s `sendId`: one Idempotency-Key's
 * request), so a retry of one whose answer was lost on the way back (the bus went down after the
 * message left; the gateway answered 504 and released the key) is answered with the first send's
 * key instead of reaching the contact twice. A retry while the first is still under way waits for
 * it. A send that failed is forgotten: nothing of it left (or its outcome is WhatsApp's), and the
 * client may try again. Kept in memory only: a retry that reaches the session's next owner after
 * this worker died is sent again (README, reliability).
 */
export class SendReplays {
  private readonly sends = new LRUCache<string, Promise<SentKey>>({ max: MAX_SENDS, ttl: KEEP_MS });

  /**
   * The send already made (or under way) under `scope` and `sendId`, if any: a retry is answered
   * with it even when the session is not connected any more (it was when the first try left).
   */
  made(scope: string, sendId: string | undefined): Promise<SentKey> | undefined {
    return sendId === undefined ? undefined : this.sends.get(`${scope}\n${sendId}`);
  }

  /** The send under `scope` and `sendId` is not to be answered again (it was never delivered). */
  forget(scope: string, sendId: string | undefined): void {
    if (sendId !== undefined) this.sends.delete(`${scope}\n${sendId}`);
  }

  /** `send`'s key, or the key of the send already made (or under way) under `scope` and `sendId`. */
  once(scope: string, sendId: string | undefined, send: () => Promise<SentKey>): Promise<SentKey> {
    if (sendId === undefined) return send();
    const id = `${scope}\n${sendId}`;
    const known = this.sends.get(id);
    if (known) return known;
    const sending = send();
    this.sends.set(id, sending);
    sending.catch(() => {
      if (this.sends.get(id) === sending) this.sends.delete(id);
    });
    return sending;
  }
}
