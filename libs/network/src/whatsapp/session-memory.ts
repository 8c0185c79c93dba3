import type { proto } from '@whiskeysockets/baileys';
import { LRUCache } from 'lru-cache';
import { BoundedCache } from './bounded-cache';
import type { QuotableMessage } from './quotable-message';
import { RememberedDecryptions } from './remembered-decryptions';

const HOUR = 60 * 60 * 1000;

/**
 * What the driver keeps per session across reconnects (each reconnect is a new Baileys socket) and
 * across re-opens on this worker. Every part is size-limited; the figures set the memory budget.
 */
export class SessionMemory {
  /** Ids already handed to onInbound: a message re-sent by the network is not delivered twice. */
  readonly delivered = new LRUCache<string, true>({ max: 5_000 });
  /** Recently sent messages, so a recipient's retry request can be served (`getMessage`). */
  readonly sent = new BoundedCache({ max: 256, ttlMs: 24 * HOUR });
  /**
   * Where each message sent through the API went (id → `key.remoteJid`): its statuses are
   * reported, those of messages sent from the phone are not. Older sends are found in the archive.
   */
  readonly sentTo = new LRUCache<string, string>({ max: 10_000, ttl: 7 * 24 * HOUR });
  /**
   * Recently received messages as replies quote them; older ones are read from the store. Bounded
   * in bytes (each entry's stored size), not only in entries: any contact can send large messages.
   */
  readonly received = new LRUCache<string, QuotableMessage>({
    max: 256,
    maxSize: 128 * 1024,
    ttl: 7 * 24 * HOUR,
  });
  /**
   * Plaintexts of recent ciphertexts, for the same stanza delivered again after a stream ended
   * between its decryption and its receipt (RememberedDecryptions says why).
   */
  readonly decrypted = new RememberedDecryptions();
  /** Baileys' retry counters: one cache for the session's life, so reconnects do not reset them. */
  readonly retryCounters = new BoundedCache({ max: 1_000, ttlMs: HOUR });
  readonly userDevices = new BoundedCache({ max: 2_000, ttlMs: 5 * 60 * 1000 });
  readonly placeholderResends = new BoundedCache({ max: 500, ttlMs: HOUR });
  readonly callOffers = new BoundedCache({ max: 100, ttlMs: 5 * 60 * 1000 });
  /** Group metadata for sends to groups (`cachedGroupMetadata`); dropped on any group change. */
  readonly groups = new BoundedCache({ max: 200, ttlMs: 15 * 60 * 1000 });

  rememberSent(id: string | null | undefined, message: proto.IMessage | null | undefined): void {
    if (id && message) this.sent.set(id, message);
  }
}
