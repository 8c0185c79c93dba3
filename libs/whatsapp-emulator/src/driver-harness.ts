import type { InboundNetworkMessage } from '@jumbe/domain';
import {
  WhatsAppNetworkDriver,
  type GroupEvent,
  type LinkEvent,
  type MessageStatusReport,
  type NetworkSession,
  type PollVote,
  type SessionRef,
  type WhatsAppNetworkOptions,
} from '@jumbe/network';
import pino from 'pino';
import type { EmulatedUser } from './emulated-user';
import type { LinkedDevice } from './linked-device';
import { MemoryCredentials } from './memory-credentials';
import type { EmulatedNetwork } from './network';

/** One session opened through the product's WhatsApp driver, with what it reported. */
export interface OpenedSession {
  readonly ref: SessionRef;
  readonly session: NetworkSession;
  readonly links: LinkEvent[];
  readonly inbound: InboundNetworkMessage[];
  /** The statuses the driver reported for what this session sent. */
  readonly statuses: MessageStatusReport[];
  /** The group changes the driver reported (members, subject, settings). */
  readonly groupEvents: GroupEvent[];
  /** The poll votes the driver decrypted. */
  readonly pollVotes: PollVote[];
}

/**
 * The product's real WhatsApp driver (real Baileys, credentials in memory) pointed at an emulator,
 * for in-process tests. Load the trust preload first, or the handshake is refused.
 */
export class DriverHarness {
  readonly credentials = new MemoryCredentials();
  readonly driver: WhatsAppNetworkDriver;
  private readonly opened: NetworkSession[] = [];

  /** `overrides`: driver options a scenario needs (backoff, buffer drain, ...). */
  constructor(
    url: string,
    logLevel = process.env['EMULATOR_LOG'] ?? 'silent',
    overrides: Partial<WhatsAppNetworkOptions> = {},
  ) {
    this.driver = new WhatsAppNetworkDriver({
      credentials: this.credentials,
      secretKey: 'test-secret-key-with-enough-characters',
      logger: pino({ level: logLevel }),
      baileysLogLevel: logLevel,
      fetchVersion: async () => null,
      webSocketUrl: url,
      reconnectBaseMs: 50,
      reconnectMaxMs: 200,
      connectSpacingMs: 0,
      redeliveryIntervalMs: 100,
      // Media sends fetch from a file server on 127.0.0.1.
      allowPrivateNetworks: true,
      ...overrides,
    });
  }

  async open(sessionId: string, linked = false): Promise<OpenedSession> {
    const ref = { accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId };
    const links: LinkEvent[] = [];
    const inbound: InboundNetworkMessage[] = [];
    const statuses: MessageStatusReport[] = [];
    const groupEvents: GroupEvent[] = [];
    const pollVotes: PollVote[] = [];
    const session = await this.driver.open(
      ref,
      {
        onLink: (event) => links.push(event),
        onInbound: async (message) => void inbound.push(message),
        onMessageStatus: (report) => void statuses.push(report),
        onGroupEvent: (event) => void groupEvents.push(event),
        onPollVote: (vote) => void pollVotes.push(vote),
      },
      { linked, token: 1 },
    );
    this.opened.push(session);
    return { ref, session, links, inbound, statuses, groupEvents, pollVotes };
  }

  /** Opens a fresh session and links it by QR with `phone` (as a user scans the QR); waits for `connected`. */
  async link(
    network: EmulatedNetwork,
    phone: EmulatedUser,
    sessionId: string,
  ): Promise<OpenedSession & { device: LinkedDevice }> {
    const opened = await this.open(sessionId);
    const qr = await until(() => opened.links.find((event) => event.type === 'qr'));
    const device = await network.scanQr(phone, qr.type === 'qr' ? qr.qr : '');
    await until(() => opened.links.find((event) => event.type === 'connected'), 20_000);
    return { ...opened, device };
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.opened.splice(0).map((session) => session.close()));
  }
}

/** Polls until `probe` returns a value (tests wait on protocol steps this way). */
export async function until<T>(probe: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
