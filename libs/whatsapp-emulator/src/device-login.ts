import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import type { NetworkDirectory } from './directory';
import type { EmulatedConnection } from './emulator';
import { unixNow } from './iq-nodes';
import { deviceJid, deviceLid, type LinkedDevice } from './linked-device';
import { streamError } from './stream-faults';

/** What a login needs from the rest of the network. */
export interface LoginDeps {
  readonly directory: NetworkDirectory;
  /** The connection is still open (a held login is not answered on a closed one). */
  isOpen(connection: EmulatedConnection): boolean;
  /** Routes what the device sends on this connection (registered before `<success>` goes out). */
  route(device: LinkedDevice, connection: EmulatedConnection): void;
  /** After `<success>`: the offline backlog and, on the first login, the history bootstrap. */
  welcome(device: LinkedDevice, connection: EmulatedConnection): void;
}

/**
 * A linked device logging in with its stored credentials, and the ways a test makes the server
 * refuse, hold or bounce logins (refusal storms, a minimum client version, a countdown of
 * refusals, held logins, restart storms).
 */
export class DeviceLogin {
  /** Every successful login, oldest first, by device JID (`<phone>:<device>@s.whatsapp.net`). */
  readonly logins: string[] = [];
  /** Logins refused so far (by refuseLogins or unknown credentials). */
  refused = 0;
  private loginRefusal: { reason: number; remaining: number } | null = null;
  /** Logins waiting for `holdLogins`' release (null: logins are answered at once). */
  private heldLogins: (() => void)[] | null = null;
  private refusalStorm: number | 'unknown-stream-error' | null = null;
  private minimumVersion: readonly [number, number, number] | null = null;
  private restartStorm = new Set<string>();

  constructor(private readonly deps: LoginDeps) {}

  /**
   * A linked device logs in with its stored credentials: it must be a device the phone linked,
   * using the noise key it linked with; a device already connected elsewhere is replaced (440).
   */
  logIn(connection: EmulatedConnection, payload: proto.ClientPayload): void {
    if (this.heldLogins) {
      this.heldLogins.push(() => {
        if (connection.noise.established && this.deps.isOpen(connection)) this.logIn(connection, payload);
      });
      return;
    }
    const { directory } = this.deps;
    const jid = `${String(payload.username)}:${payload.device ?? 0}@s.whatsapp.net`;
    const device = directory.device(jid);
    const known = device !== undefined && connection.noise.clientStatic?.equals(device.noiseKey) === true;
    if (known && this.refusalStorm === 'unknown-stream-error') {
      this.refuse(connection, streamError('unknown'));
      return;
    }
    const refusal = known
      ? (this.stormRefusal() ?? this.versionRefusal(payload) ?? this.takeLoginRefusal())
      : 401;
    if (!device || refusal !== null) {
      this.refuse(connection, {
        tag: 'failure',
        attrs: { reason: String(refusal ?? 401), location: 'emulator' },
      });
      return;
    }
    const previous = directory.connectionAt(jid);
    if (previous) {
      previous.send(streamError('conflict'));
      previous.close();
    }
    directory.setOnline(jid, connection);
    this.deps.route(device, connection);
    connection.send({
      tag: 'success',
      attrs: { t: unixNow(), lid: deviceLid(device), location: 'emulator' },
    });
    this.logins.push(jid);
    if (this.restartStorm.has(jid)) {
      connection.send(streamError('restart'));
      connection.close();
      return;
    }
    this.deps.welcome(device, connection);
  }

  private refuse(connection: EmulatedConnection, refusal: BinaryNode): void {
    this.refused += 1;
    connection.send(refusal);
    connection.close();
  }

  /**
   * A WhatsApp incident: every login is refused until stopRefusalStorm, with `<failure reason>`
   * (405, 500, 503, ...) or, for `unknown-stream-error`, a `<stream:error>` with an unknown child.
   * Connected devices are not touched (drop them with endStream / resetConnection).
   */
  startRefusalStorm(refusal: number | 'unknown-stream-error'): void {
    this.refusalStorm = refusal;
  }

  stopRefusalStorm(): void {
    this.refusalStorm = null;
  }

  /**
   * WhatsApp raises its minimum client version: logins announcing an older WhatsApp Web version
   * (`userAgent.appVersion`) get `<failure reason="405">`; null lifts the minimum.
   */
  requireClientVersion(version: readonly [number, number, number] | null): void {
    this.minimumVersion = version;
  }

  /**
   * The server asks these devices to restart (515) right after every login, until
   * stopRestartStorm: a server looping its restart request.
   */
  startRestartStorm(devices: LinkedDevice[]): void {
    this.restartStorm = new Set(devices.map(deviceJid));
  }

  stopRestartStorm(): void {
    this.restartStorm = new Set();
  }

  /**
   * The next `times` logins are refused with `<failure reason>` (e.g. 405: client outdated, 403,
   * 500); `null` stops refusing.
   */
  refuseLogins(reason: number | null, times = Number.POSITIVE_INFINITY): void {
    this.loginRefusal = reason === null ? null : { reason, remaining: times };
  }

  /**
   * Logins wait, unanswered, until the returned release is called (a slow server): a test can act
   * between a device's handshake and its `<success>`, e.g. hand a session over between the scan
   * and the first `connected`. A connection that closes meanwhile is never answered.
   */
  holdLogins(): () => void {
    const held: (() => void)[] = (this.heldLogins ??= []);
    return () => {
      if (this.heldLogins === held) this.heldLogins = null;
      for (const answer of held.splice(0)) answer();
    };
  }

  /** Logins waiting for a release of `holdLogins`. */
  get loginsHeld(): number {
    return this.heldLogins?.length ?? 0;
  }

  private stormRefusal(): number | null {
    return typeof this.refusalStorm === 'number' ? this.refusalStorm : null;
  }

  private versionRefusal(payload: proto.ClientPayload): number | null {
    const minimum = this.minimumVersion;
    if (!minimum) return null;
    const announced = payload.userAgent?.appVersion;
    const version = [announced?.primary ?? 0, announced?.secondary ?? 0, announced?.tertiary ?? 0];
    for (let index = 0; index < 3; index += 1) {
      const part = version[index] ?? 0;
      const least = minimum[index] ?? 0;
      if (part !== least) return part < least ? 405 : null;
    }
    return null;
  }

  private takeLoginRefusal(): number | null {
    const refusal = this.loginRefusal;
    if (!refusal || refusal.remaining <= 0) return null;
    refusal.remaining -= 1;
    return refusal.reason;
  }
}
