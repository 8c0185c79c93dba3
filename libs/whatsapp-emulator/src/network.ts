import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import { EventEmitter } from 'node:events';
import { EmulatedCalls } from './calls';
import { ContactResends } from './contact-resends';
import { DeviceDelivery } from './delivery';
import { DeviceLogin } from './device-login';
import { DevicePairing } from './device-pairing';
import { type DeviceNodeHandlers, routeDeviceNode } from './device-routing';
import { NetworkDirectory } from './directory';
import type { EmulatedConnection, WhatsAppEmulator } from './emulator';
import type { EmulatedUser } from './emulated-user';
import type { EmulatedGroup } from './groups';
import { GroupAdmin } from './group-admin';
import { LidAddressing } from './lid-addressing';
import { deviceJid, type LinkedDevice, takePreKeyBundle } from './linked-device';
import { downloadAndDecrypt } from './media-download';
import { EmulatedMediaHost } from './media-host';
import { PhoneMediaReupload } from './media-reupload';
import { initialHistoryBootstrap, paddedMessage } from './message-stanzas';
import { PhoneInbox, type ReceivedMessage } from './phone-inbox';
import { PhoneSends, type SendOptions } from './phone-sends';
import { EmulatedProfiles } from './profiles';
import type { PreKeyBundle } from './signal-party';
import { SignalQueue } from './signal-queue';
import { StreamFaults } from './stream-faults';

export type { ReceivedMessage } from './phone-inbox';
export type { SendOptions } from './phone-sends';

/**
 * The emulated WhatsApp service: users and their phones, the devices they linked, and the
 * protocol each connected device speaks with the server (linking, login, IQs). Attach it to a
 * started WhatsAppEmulator; tests act as phones and contacts through its methods.
 *
 * A facade: each concern lives in a part of its own (who is on the network: NetworkDirectory;
 * linking: DevicePairing; logging in and login faults: DeviceLogin; delivery and the offline
 * backlog: DeviceDelivery; phones sending: PhoneSends; phones reading what devices send:
 * PhoneInbox; stream faults: StreamFaults; what a device sends, to whom: device-routing.ts). This
 * class wires them together and keeps the methods tests call.
 */
export class EmulatedNetwork extends EventEmitter {
  /** Stanzas from devices the emulator could not read (decryption failures), for assertions. */
  readonly failures: { stanza: BinaryNode; error: unknown }[] = [];
  private readonly directory = new NetworkDirectory();
  private readonly signal = new SignalQueue();
  private readonly delivery = new DeviceDelivery((device) => this.directory.connectionOf(device));
  private readonly pairing = new DevicePairing(this.directory);
  private readonly faults = new StreamFaults(this.directory);
  private readonly login = new DeviceLogin({
    directory: this.directory,
    isOpen: (connection) => this.emulator.connections.has(connection),
    route: (device, connection) =>
      connection.on('node', (node: BinaryNode) => routeDeviceNode(this.routing, device, connection, node)),
    welcome: (device, connection) => this.welcome(device, connection),
  });
  private readonly inbox = new PhoneInbox({
    directory: this.directory,
    signal: this.signal,
    fail: (stanza, error) => this.failures.push({ stanza, error }),
    onReceived: (received) => this.emit('received', received),
    deliver: (device, stanza) => this.deliver(device, stanza),
  });

  /** Group administration (w:g2 IQs) and its w:gp2 notifications. */
  readonly groupAdmin = new GroupAdmin({
    groups: this.directory.groups,
    findUser: (jid) => this.findUser(jid),
    newGroupJid: () => this.directory.newGroupJid(),
    notifyDevices: (user, stanza) => {
      for (const device of this.linkedDevices(user)) this.deliver(device, stanza);
    },
  });
  /** The media CDN devices upload to (`media_conn`), started on the first request. */
  readonly media = new EmulatedMediaHost();
  /** Contacts' phones answer a device's retry receipts with a resend (`resent` lists them). */
  readonly contactResends = new ContactResends({
    encryptFresh: (from, device, message, bundle) =>
      this.signal.serially(async () => {
        await from.phone.startSession(deviceJid(device), bundle ?? takePreKeyBundle(device));
        return from.phone.encrypt(deviceJid(device), paddedMessage(message));
      }),
    deliver: (device, stanza) => this.deliver(device, stanza),
  });
  /** How each contact's messages are addressed (phone number, LID announced, LID): `migrate(contact)`. */
  readonly lidAddressing = new LidAddressing();
  /** The account's phone re-uploads expired media a device asks for (`updateMediaMessage`). */
  readonly mediaReupload = new PhoneMediaReupload({
    host: this.media,
    findReceived: (device, id) => this.contactResends.sentMessage(device, id),
    send: (device, node) => this.connectionOf(device)?.send(node),
  });
  /** Push names, abouts, pictures and blocklists (profiles.ts). */
  readonly profiles = new EmulatedProfiles((jid) => this.findUser(jid));
  /** Call offers to linked devices, and the devices' rejects (calls.ts). */
  readonly calls = new EmulatedCalls(
    (user) => this.linkedDevices(user),
    (device, stanza) => this.deliver(device, stanza),
  );
  private readonly sends = new PhoneSends({
    directory: this.directory,
    signal: this.signal,
    contactResends: this.contactResends,
    lidAddressing: this.lidAddressing,
    deliver: (device, stanza) => this.deliver(device, stanza),
  });
  /** The parts that answer what a logged-in device sends (device-routing.ts). */
  private readonly routing: DeviceNodeHandlers = {
    directory: this.directory,
    inbox: this.inbox,
    delivery: this.delivery,
    mediaReupload: this.mediaReupload,
    contactResends: this.contactResends,
    media: this.media,
    groupAdmin: this.groupAdmin,
    profiles: this.profiles,
    calls: this.calls,
    fail: (stanza, error) => this.failures.push({ stanza, error }),
  };

  /** Everything linked devices sent that a phone decrypted, oldest first. */
  readonly received: ReceivedMessage[] = this.inbox.received;
  /** Stanzas a phone failed to decrypt on purpose (failToDecrypt), oldest first. */
  readonly undecryptable = this.inbox.undecryptable;
  /** Retry receipts the phones sent (forced or real decryption failures), oldest first. */
  readonly retryReceipts = this.inbox.retryReceipts;
  /** Every successful login, oldest first, by device JID (`<phone>:<device>@s.whatsapp.net`). */
  readonly logins: string[] = this.login.logins;

  constructor(readonly emulator: WhatsAppEmulator) {
    super();
    emulator.on('connection', (connection: EmulatedConnection) => this.accept(connection));
    emulator.on('stopped', () => void this.media.stop());
  }

  // ── Users, devices, groups (NetworkDirectory) ──

  /** The user with this phone number, created on first use (with a fresh LID and keys). */
  user(phoneNumber: string, name?: string): EmulatedUser {
    return this.directory.user(phoneNumber, name);
  }

  /** The user a PN or LID JID (any device) or a `+digits` phone number belongs to. */
  findUser(jidOrPhone: string): EmulatedUser | undefined {
    return this.directory.findUser(jidOrPhone);
  }

  /** The devices a user's phone has linked. */
  linkedDevices(user: EmulatedUser): LinkedDevice[] {
    return this.directory.linkedDevices(user);
  }

  deviceNumbers(user: EmulatedUser): number[] {
    return this.directory.deviceNumbers(user);
  }

  /** The connection a linked device is logged in on, if any. */
  connectionOf(device: LinkedDevice): EmulatedConnection | undefined {
    return this.directory.connectionOf(device);
  }

  /** The bundle a device JID publishes: a user's phone (device 0) or one of its linked devices. */
  bundleOf(jid: string): PreKeyBundle | undefined {
    return this.directory.bundleOf(jid);
  }

  /**
   * `creator` makes a group with `members` (the creator is a member too): linked devices of any
   * member can ask for its metadata and send to it; every member's phone decrypts what they send.
   */
  createGroup(
    subject: string,
    creator: EmulatedUser,
    members: EmulatedUser[],
    addressing: 'pn' | 'lid' = 'pn',
  ): EmulatedGroup {
    return this.directory.createGroup(subject, creator, members, addressing);
  }

  // ── Linking (DevicePairing) ──

  /** The phone scans the QR a device shows; resolves once the device is linked (then 515). */
  scanQr(phone: EmulatedUser, qr: string): Promise<LinkedDevice> {
    return this.pairing.scanQr(phone, qr);
  }

  /** The user types the pairing code the device showed into `phone`; ends as a scan does. */
  enterPairingCode(phone: EmulatedUser, code: string): Promise<LinkedDevice> {
    return this.pairing.enterPairingCode(phone, code);
  }

  // ── Logins and their faults (DeviceLogin) ──

  /** Logins refused so far (by refuseLogins or unknown credentials). */
  get refusedLogins(): number {
    return this.login.refused;
  }

  /** Every login refused (`<failure reason>`, or an unknown stream error) until stopRefusalStorm. */
  startRefusalStorm(refusal: number | 'unknown-stream-error'): void {
    this.login.startRefusalStorm(refusal);
  }

  stopRefusalStorm(): void {
    this.login.stopRefusalStorm();
  }

  /** Logins announcing an older WhatsApp Web version get 405; null lifts the minimum. */
  requireClientVersion(version: readonly [number, number, number] | null): void {
    this.login.requireClientVersion(version);
  }

  /** A 515 right after every login of these devices, until stopRestartStorm. */
  startRestartStorm(devices: LinkedDevice[]): void {
    this.login.startRestartStorm(devices);
  }

  stopRestartStorm(): void {
    this.login.stopRestartStorm();
  }

  /** The next `times` logins are refused with `<failure reason>`; `null` stops refusing. */
  refuseLogins(reason: number | null, times?: number): void {
    this.login.refuseLogins(reason, times);
  }

  /** Logins wait, unanswered, until the returned release is called (a slow server). */
  holdLogins(): () => void {
    return this.login.holdLogins();
  }

  /** Logins waiting for a release of `holdLogins`. */
  get loginsHeld(): number {
    return this.login.loginsHeld;
  }

  // ── Faults on connected devices (StreamFaults) ──

  /** The phone removes a linked device: it is told (401) and can never log in again. */
  unlink(device: LinkedDevice): void {
    this.faults.unlink(device);
  }

  /** The server ends a device's stream (440, 515, or an unknown condition); false when offline. */
  endStream(device: LinkedDevice, error: 'conflict' | 'restart' | 'unknown'): boolean {
    return this.faults.endStream(device, error);
  }

  /** The device's TCP connection is reset (no close frame, no stream error). False when offline. */
  resetConnection(device: LinkedDevice): boolean {
    return this.faults.resetConnection(device);
  }

  /** The server goes quiet on the device's connection, TCP kept open. False when offline. */
  silenceConnection(device: LinkedDevice): boolean {
    return this.faults.silenceConnection(device);
  }

  // ── Delivery and the offline backlog (DeviceDelivery) ──

  /** Hands a stanza to the device now, or keeps it for its next login (offline backlog). */
  deliver(device: LinkedDevice, stanza: BinaryNode): void {
    this.delivery.deliver(device, stanza);
  }

  /** The largest offline batch the server sends; lower it to split a backlog into batches. */
  get offlineBatchLimit(): number {
    return this.delivery.offlineBatchLimit;
  }

  set offlineBatchLimit(limit: number) {
    this.delivery.offlineBatchLimit = limit;
  }

  /** Withholds `<ib><offline>` from every device until the returned release is called. */
  holdOfflineCompletion(): () => void {
    return this.delivery.holdOfflineCompletion();
  }

  /** Devices whose backlog was delivered and answered but not yet completed (a hold is on). */
  get offlineCompletionsHeld(): number {
    return this.delivery.offlineCompletionsHeld;
  }

  // ── Phones sending to devices (PhoneSends) ──

  /** `from`'s phone sends `message` to every device `to` has linked (offline ones: on login). */
  sendMessage(
    from: EmulatedUser,
    to: EmulatedUser,
    message: proto.IMessage,
    options: SendOptions = {},
  ): Promise<string> {
    return this.sends.sendMessage(from, to, message, options);
  }

  /** `from` sends `to`'s devices a message they cannot decrypt (optionally resent after retries). */
  sendUndecryptable(
    from: EmulatedUser,
    to: EmulatedUser,
    message?: proto.IMessage,
    garbledResends = 0,
  ): string {
    return this.sends.sendUndecryptable(from, to, message, garbledResends);
  }

  /** `from` sends `message` to the group `groupJid`, which `to`'s linked devices are in. */
  sendGroupMessage(
    from: EmulatedUser,
    groupJid: string,
    to: EmulatedUser,
    message: proto.IMessage,
    addressing?: 'pn' | 'lid',
  ): Promise<string> {
    return this.sends.sendGroupMessage(from, groupJid, to, message, addressing);
  }

  /**
   * `from` sends the group a message whose `skmsg` copy reaches `to`'s devices at a counter they
   * already used (`old counter`, as a message decrypted once and delivered again): each device asks
   * again and the phone resends it pairwise (optionally `garbledResends` unreadable resends first).
   */
  sendStaleGroupMessage(
    from: EmulatedUser,
    groupJid: string,
    to: EmulatedUser,
    message: proto.IMessage,
    garbledResends = 0,
  ): Promise<string> {
    return this.sends.sendStaleGroupMessage(from, groupJid, to, message, garbledResends);
  }

  // ── Phones reading what devices send (PhoneInbox) ──

  /** What a user's phone received from linked devices. */
  receivedBy(user: EmulatedUser): ReceivedMessage[] {
    return this.inbox.receivedBy(user);
  }

  /** `recipient`'s phone sends the sending device a retry receipt; false when it is offline. */
  requestRetry(recipient: EmulatedUser, message: ReceivedMessage): boolean {
    return this.inbox.requestRetry(recipient, message);
  }

  /** `recipient`'s phone fails to decrypt the next `times` messages devices send it. */
  failToDecrypt(recipient: EmulatedUser, times = 1): void {
    this.inbox.failToDecrypt(recipient, times);
  }

  /**
   * What the recipient's phone gets when it opens a media message a device sent: the file
   * downloaded from the media host by its direct path, checked and decrypted (throws on a mismatch).
   */
  downloadMedia(received: ReceivedMessage): Promise<Buffer> {
    return downloadAndDecrypt(received.message, (where) => this.media.fetch(where));
  }

  // ── Connections ──

  private accept(connection: EmulatedConnection): void {
    connection.once('established', (payload: proto.ClientPayload) => {
      if (payload.devicePairingData) this.pairing.offerPairing(connection, payload.devicePairingData);
      else this.login.logIn(connection, payload);
    });
    connection.on('closed', () => {
      this.pairing.forgetRegistration(connection);
      for (const device of this.directory.takeOffline(connection)) this.delivery.redeliverUnanswered(device);
    });
  }

  /** A device logged in: what waited for it, and on its first login the phone's history bootstrap. */
  private welcome(device: LinkedDevice, connection: EmulatedConnection): void {
    this.delivery.replayBacklog(device, connection);
    if (!device.bootstrapped) {
      device.bootstrapped = true;
      this.sends
        .sendPeerMessage(device, initialHistoryBootstrap())
        .catch((error: unknown) => this.failures.push({ stanza: { tag: 'peer', attrs: {} }, error }));
    }
  }
}
