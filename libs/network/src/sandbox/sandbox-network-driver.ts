import type { SecretBox } from '@jumbe/domain';
import { Readable } from 'node:stream';
import { type InboundMediaFile, MediaDownloadError, type MediaDownloadLimits } from '../inbound-media-file';
import type { NetworkDriver, NetworkOpenOptions } from '../network-driver';
import type { NetworkSession } from '../network-session';
import type { SessionEvents } from '../session-events';
import { sessionRefKey, type SessionRef } from '../session-ref';
import type { CredentialStore } from '../whatsapp/credential-store';
import { SandboxControl } from './sandbox-control';
import { type SandboxCredentialKeeping, SandboxCredentials } from './sandbox-credentials';
import {
  sandboxNetworkSettings,
  type SandboxNetworkOptions,
  type SandboxNetworkSettings,
} from './sandbox-network-options';
import { SandboxSession } from './sandbox-session';
import type { SandboxStore } from './sandbox-store';

/**
 * The simulated network (CONTRACT §9). Every worker has its own driver over one shared store: the
 * driver holds this worker's live connections, the store holds the network's state.
 */
export class SandboxNetworkDriver implements NetworkDriver {
  readonly name = 'sandbox' as const;
  private readonly settings: SandboxNetworkSettings;
  private readonly sessions = new Map<string, SandboxSession>();
  private readonly controls: SandboxControl;

  private readonly keeping: { credentials: CredentialStore; cipher: SecretBox } | null;

  /**
   * `keeping`: where each device keeps its link (`network_credentials`, sealed), so a link
   * survives a network that forgets (the all-in-one's memory store on restart). Without it, a
   * link lives only as long as the store does (unit tests).
   */
  constructor(
    private readonly store: SandboxStore,
    options: SandboxNetworkOptions = {},
    keeping?: SandboxCredentialKeeping,
  ) {
    this.settings = sandboxNetworkSettings(options);
    this.keeping = keeping
      ? { credentials: keeping.credentials, cipher: SandboxCredentials.cipherOf(keeping) }
      : null;
    this.controls = new SandboxControl(store, (ref) => this.sessions.get(sessionRefKey(ref)));
  }

  /** `options.token` fences the device's credential writes (needed when credentials are kept). */
  async open(ref: SessionRef, events: SessionEvents, options: NetworkOpenOptions): Promise<NetworkSession> {
    const device = this.deviceCredentials(ref, options.token);
    const key = sessionRefKey(ref);
    // A second connection with the same credentials replaces the first, as on WhatsApp.
    this.sessions.get(key)?.end('connection_replaced');
    const session = new SandboxSession({ ...ref }, events, this.store, this.settings, device, (ended) => {
      if (this.sessions.get(key) === ended) this.sessions.delete(key);
    });
    this.sessions.set(key, session);
    if (options.linked) {
      session.beginReconnect();
      return session;
    }
    try {
      await session.beginLogin();
    } catch (error) {
      session.abandon();
      throw error;
    }
    return session;
  }

  /** A file a simulated contact attached (`POST /sandbox/inbound` with `media.data`). */
  async downloadMedia(
    ref: SessionRef,
    messageId: string,
    limits: MediaDownloadLimits,
  ): Promise<InboundMediaFile> {
    const file = await this.store.mediaFile(ref, messageId);
    if (!file) {
      throw new MediaDownloadError(
        'media_not_found',
        `The session received no media file with id ${messageId}.`,
      );
    }
    if (file.data.length > limits.maxBytes) {
      throw new MediaDownloadError(
        'media_too_large',
        `The file has ${file.data.length} bytes; at most ${limits.maxBytes} are downloaded.`,
      );
    }
    return {
      mimetype: file.mimetype,
      fileName: file.fileName,
      size: file.data.length,
      data: Readable.from([file.data]),
    };
  }

  private deviceCredentials(ref: SessionRef, token: number | undefined): SandboxCredentials | null {
    if (!this.keeping) return null;
    if (token === undefined) {
      throw new Error('the sandbox driver needs the shard fencing token to store credentials');
    }
    return new SandboxCredentials(this.keeping.credentials, this.keeping.cipher, { ...ref }, token);
  }

  /** The phone's and the network's side of the sessions open in this driver. */
  control(): SandboxControl {
    return this.controls;
  }
}
