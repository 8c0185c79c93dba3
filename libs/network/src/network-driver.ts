import type { InboundMediaFile, MediaDownloadLimits } from './inbound-media-file';
import type { NetworkSession } from './network-session';
import type { SessionEvents } from './session-events';
import type { SessionRef } from './session-ref';

/** A messaging network (`whatsapp`, or the simulated `sandbox`) seen in domain terms only. */
export interface NetworkDriver {
  readonly name: 'whatsapp' | 'sandbox';
  /**
   * Opens (or re-opens from stored credentials) the session's connection. `linked` tells whether
   * the caller's record says the session is linked (reconnect: `connecting`, then `connected`) or
   * a fresh login is expected (emit `qr`); a driver that stores credentials decides from them
   * instead, so a stored link is always resumed, never replaced by a new login. Events start after the returned promise resolves. `token` is the fencing token of
   * the shard lease the caller holds: a driver that stores credentials guards every write with it
   * (refused once a newer owner holds the session), the sandbox's kept link included.
   */
  open(ref: SessionRef, events: SessionEvents, options: NetworkOpenOptions): Promise<NetworkSession>;
  /**
   * The file of a media message the session received (kept 7 days after it arrived), fetched from
   * the network's media servers; no open connection is needed. Fails with MediaDownloadError.
   */
  downloadMedia(ref: SessionRef, messageId: string, limits: MediaDownloadLimits): Promise<InboundMediaFile>;
}

export interface NetworkOpenOptions {
  linked: boolean;
  token?: number;
  /**
   * Asked before every (re)connect: false once this worker lost the session's shard, so it steps
   * back instead of reconnecting and kicking the new owner off the network (a 440 there).
   */
  stillOwned?: () => boolean;
}
