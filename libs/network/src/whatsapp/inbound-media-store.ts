import { sessionRefKey, type SessionRef } from '../session-ref';

/** A stored descriptor, or the fact that it is past its time to live. */
export type StoredMediaDescriptor = { expired: false; value: Buffer } | { expired: true };

/**
 * Where the driver keeps how to download each media message a session received: `inbound_media`
 * through InboundMediaRepository of @jumbe/persistence (7 days, bounded per session). Values
 * arrive sealed; the store never sees a media key.
 */
export interface InboundMediaStore {
  save(ref: SessionRef, messageId: string, value: Buffer): Promise<void>;
  find(ref: SessionRef, messageId: string): Promise<StoredMediaDescriptor | null>;
}

/** Descriptors a driver without a database keeps, oldest dropped first. */
const PROCESS_DESCRIPTORS = 10_000;

/** The store of a driver without a database (tests, tools): this process only, no expiry. */
export class ProcessInboundMediaStore implements InboundMediaStore {
  private readonly entries = new Map<string, Buffer>();

  async save(ref: SessionRef, messageId: string, value: Buffer): Promise<void> {
    const key = `${sessionRefKey(ref)}/${messageId}`;
    if (this.entries.has(key)) return;
    this.entries.set(key, value);
    if (this.entries.size > PROCESS_DESCRIPTORS) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  async find(ref: SessionRef, messageId: string): Promise<StoredMediaDescriptor | null> {
    const value = this.entries.get(`${sessionRefKey(ref)}/${messageId}`);
    return value ? { expired: false, value } : null;
  }
}
