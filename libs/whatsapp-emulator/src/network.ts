import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { signedDeviceIdentity, verifyDeviceSignature } from './device-identity';
import { answerDeviceIq } from './device-iqs';
import { EmulatedCalls } from './calls';
import { EmulatedProfiles } from './profiles';
import { type EmulatedGroup } from './groups';
import { GroupAdmin } from './group-admin';
import type { EmulatedConnection, WhatsAppEmulator } from './emulator';
import { EmulatedUser } from './emulated-user';
import { ContactResends } from './contact-resends';
import { PhoneMediaReupload } from './media-reupload';
import { LidAddressing } from './lid-addressing';
import { bigEndian, bytesOf, child, children, iqError, iqResult } from './iq-nodes';
import { deviceJid, deviceLid, type LinkedDevice, takePreKeyBundle } from './linked-device';
import { parseLinkingQr } from './linking-qr';
import { downloadAndDecrypt } from './media-download';
import { EmulatedMediaHost } from './media-host';
import { advSecretFromFinish, unwrapWithCode, wrapWithCode } from './pairing-code';
import { newKeyPair } from './root-key';
import { OfflineBacklogReplay } from './offline-backlog';
import {
  inboundMessageStanza,
  initialHistoryBootstrap,
  newMessageId,
  paddedMessage,
  stanzaType,
  unpaddedMessage,
} from './message-stanzas';
import type { PreKeyBundle, SignalMessageType, SignalParty } from './signal-party';

/** A device waiting to be linked: it registered and shows QR codes made of `refs`. */
interface Registration {
  readonly connection: EmulatedConnection;
  readonly pairing: proto.ClientPayload.IDevicePairingRegistrationData;
  readonly refs: string[];
  /** The device asked for a pairing code for this phone number (`companion_hello`). */
  codeRequest?: CodeRequest;
}

interface CodeRequest {
  readonly phoneJid: string;
  readonly wrappedEphemeral: Buffer;
  readonly ref: Buffer;
  /** Resolves with the device's `companion_finish` once the phone answered. */
  finish?: (iq: BinaryNode) => void;
}

/** A message a linked device sent, as the recipient's phone decrypted it. */
export interface ReceivedMessage {
  readonly id: string;
  /** The linked device that sent it (`<phone>:<device>@s.whatsapp.net`). */
  readonly sender: string;
  /** The stanza's `to`: the chat it was sent to. */
  readonly chat: string;
  /** The user whose phone decrypted it. */
  readonly recipient: EmulatedUser;
  readonly message: proto.Message;
  /** The whole stanza the device sent (its `biz` node, `device-identity`, ...). */
  readonly stanza: BinaryNode;
}

export interface SendOptions {
  readonly id?: string;
  /**
   * Address the sender by LID (with its phone number in `sender_pn`) or by phone number; default:
   * the contact's current addressing (`lidAddressing`).
   */
  readonly addressing?: 'pn' | 'lid';
}

/** How many QR refs a registering device gets (Baileys shows one after the other). */
const QR_REFS = 6;

/**
 * The emulated WhatsApp service: users and their phones, the devices they linked, and the
 * protocol each connected device speaks with the server (linking, login, IQs). Attach it to a
 * started WhatsAppEmulator; tests act as phones and contacts through its methods.
 */
export class EmulatedNetwork extends EventEmitter {
  /** Everything linked devices sent that a phone decrypted, oldest first. */
  readonly received: ReceivedMessage[] = [];
  /** Stanzas from devices the emulator could not read (decryption failures), for assertions. */
  readonly failures: { stanza: BinaryNode; error: unknown }[] = [];
  /** Signal work runs one step at a time: two sends must never race for one session. */
  private signalQueue: Promise<unknown> = Promise.resolve();
  private readonly usersByPhone = new Map<string, EmulatedUser>();
  private readonly usersByLid = new Map<string, EmulatedUser>();
  private readonly devices = new Map<string, LinkedDevice>();
  private readonly online = new Map<string, EmulatedConnection>();
  private readonly registrations = new Map<string, Registration>();
  private readonly groups = new Map<string, EmulatedGroup>();
  private nextGroup = 1;
  /** Group administration (w:g2 IQs) and its w:gp2 notifications. */
  readonly groupAdmin = new GroupAdmin({
    groups: this.groups,
    findUser: (jid) => this.findUser(jid),
    newGroupJid: () => `1203630${String(this.nextGroup++).padStart(11, '0')}@g.us`,
    notifyDevices: (user, stanza) => {
      for (const device of this.linkedDevices(user)) this.deliver(device, stanza);
    },
  });
  /** The media CDN devices upload to (`media_conn`), started on the first request. */
  readonly media = new EmulatedMediaHost();
  private nextLid = 100_000_000_000_001;
  private loginRefusal: { reason: number; remaining: number } | null = null;
  /** Logins refused so far (by refuseLogins or unknown credentials). */
  refusedLogins = 0;
  /** Recipients whose phone fails to decrypt the next N messages from devices (see failToDecrypt). */
  private readonly decryptionFailures = new Map<EmulatedUser, number>();
  /** Retry receipts each phone sent, per message id (their `count`). */
  private readonly retriesSent = new Map<string, number>();
  /** Logins waiting for `holdLogins`' release (null: logins are answered at once). */
  private heldLogins: (() => void)[] | null = null;
  /** Contacts' phones answer a device's retry receipts with a resend (`resent` lists them). */
  readonly contactResends = new ContactResends({
    encryptFresh: (from, device, message, bundle) =>
      this.serially(async () => {
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

  constructor(readonly emulator: WhatsAppEmulator) {
    super();
    emulator.on('connection', (connection: EmulatedConnection) => this.accept(connection));
    emulator.on('stopped', () => void this.media.stop());
  }

  /** The user with this phone number, created on first use (with a fresh LID and keys). */
  user(phoneNumber: string, name = `User ${phoneNumber.slice(-4)}`): EmulatedUser {
    const existing = this.usersByPhone.get(phoneNumber);
    if (existing) return existing;
    const user = new EmulatedUser(phoneNumber, String(this.nextLid++), name);
    this.usersByPhone.set(phoneNumber, user);
    this.usersByLid.set(user.lidUser, user);
    return user;
  }

  /** The user a PN or LID JID (any device) or a `+digits` phone number belongs to. */
  findUser(jidOrPhone: string): EmulatedUser | undefined {
    const [userPart, server] = jidOrPhone.replace(/^\+/, '').split('@');
    const user = (userPart ?? '').split(':')[0] ?? '';
    return server === 'lid' ? this.usersByLid.get(user) : this.usersByPhone.get(user);
  }

  /** The devices a user's phone has linked. */
  linkedDevices(user: EmulatedUser): LinkedDevice[] {
    return [...this.devices.values()].filter((device) => device.user === user);
  }

  deviceNumbers(user: EmulatedUser): number[] {
    return [0, ...this.linkedDevices(user).map((device) => device.device)];
  }

  /** The connection a linked device is logged in on, if any. */
  connectionOf(device: LinkedDevice): EmulatedConnection | undefined {
    return this.online.get(deviceJid(device));
  }

  /**
   * The phone scans the QR a device shows: the server checks it is a QR it issued to a device
   * still connected, sends that device a signed `pair-success`, checks the device's
   * counter-signature, then asks it to restart (515) and log in with its new credentials.
   */
  async scanQr(phone: EmulatedUser, qr: string): Promise<LinkedDevice> {
    const scanned = parseLinkingQr(qr);
    const registration = this.registrations.get(scanned.ref);
    if (!registration) throw new Error('this QR was not issued to a connected device');
    if (!registration.connection.noise.clientStatic?.equals(scanned.noiseKey)) {
      throw new Error('QR noise key mismatch');
    }
    return this.pair(phone, registration, scanned.identityKey, scanned.advSecret);
  }

  /**
   * The user types the pairing code the device showed into `phone`: the phone unwraps the
   * device's ephemeral key with it, answers with its own (the `link_code_companion_reg`
   * notification), opens the device's key bundle from `companion_finish`, and both derive the adv
   * secret; then the pairing ends as a scan does (pair-success, 515).
   */
  async enterPairingCode(phone: EmulatedUser, code: string): Promise<LinkedDevice> {
    const registration = await this.codeRequestFor(phone);
    const request = registration.codeRequest;
    if (!request) throw new Error('the pairing-code request was withdrawn');
    const companionEphemeral = unwrapWithCode(code.replace(/-/g, ''), request.wrappedEphemeral);
    const phoneEphemeral = newKeyPair();
    const finished = new Promise<BinaryNode>((resolve) => (request.finish = resolve));
    registration.connection.send({
      tag: 'notification',
      attrs: { from: 's.whatsapp.net', type: 'link_code_companion_reg', id: newMessageId(), t: unixNow() },
      content: [
        {
          tag: 'link_code_companion_reg',
          attrs: { stage: 'primary_hello' },
          content: [
            { tag: 'link_code_pairing_ref', attrs: {}, content: request.ref },
            { tag: 'primary_identity_pub', attrs: {}, content: phone.phone.identityKey },
            {
              tag: 'link_code_pairing_wrapped_primary_ephemeral_pub',
              attrs: {},
              content: wrapWithCode(code.replace(/-/g, ''), phoneEphemeral.public),
            },
          ],
        },
      ],
    });
    const finish = await finished;
    const reg = child(finish, 'link_code_companion_reg');
    const { advSecret, companionIdentity } = advSecretFromFinish({
      phoneEphemeral,
      companionEphemeral,
      phoneIdentity: phone.phone.identityKeyPair,
      wrappedKeyBundle: bytesOf(child(reg, 'link_code_pairing_wrapped_key_bundle')) ?? Buffer.alloc(0),
    });
    registration.connection.send(iqResult(finish));
    return this.pair(phone, registration, companionIdentity, advSecret);
  }

  /** The registration that asked for a code for `phone` (waits a little: the request may be in flight). */
  private async codeRequestFor(phone: EmulatedUser, timeoutMs = 5_000): Promise<Registration> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = [...new Set(this.registrations.values())].find(
        (candidate) => candidate.codeRequest?.phoneJid === phone.jid,
      );
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no device asked for a pairing code for ${phone.phoneNumber}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * Ends a pairing: a `pair-success` signed by the phone's account key (HMAC with the adv
   * secret), the device's counter-signature checked, the device recorded, then the 515 restart.
   */
  private async pair(
    phone: EmulatedUser,
    registration: Registration,
    identityKey: Buffer,
    advSecret: Buffer,
  ): Promise<LinkedDevice> {
    const { connection, pairing } = registration;
    if (!Buffer.from(pairing.eIdent ?? []).equals(identityKey)) throw new Error('identity key mismatch');
    const number = Math.max(0, ...this.deviceNumbers(phone)) + 1;
    const answer = await connection.request({
      tag: 'iq',
      attrs: { from: 's.whatsapp.net', type: 'set', t: unixNow() },
      content: [
        {
          tag: 'pair-success',
          attrs: {},
          content: [
            {
              tag: 'device-identity',
              attrs: { 'key-index': String(number) },
              content: signedDeviceIdentity({
                account: phone.accountKey,
                deviceIdentityKey: identityKey,
                advSecret,
                rawId: Number(phone.lidUser) % 2 ** 31,
                keyIndex: number,
              }),
            },
            { tag: 'platform', attrs: { name: 'android' } },
            {
              tag: 'device',
              attrs: {
                jid: `${phone.phoneNumber}:${number}@s.whatsapp.net`,
                lid: `${phone.lidUser}:${number}@lid`,
              },
            },
          ],
        },
      ],
    });
    const signed = bytesOf(child(child(answer, 'pair-device-sign'), 'device-identity'));
    if (answer.attrs.type !== 'result' || !signed) throw new Error('the device refused the pair-success');
    if (!verifyDeviceSignature(signed, phone.accountKey, identityKey)) {
      throw new Error('the device signature in pair-device-sign is not valid');
    }
    const device: LinkedDevice = {
      user: phone,
      device: number,
      noiseKey: Buffer.from(connection.noise.clientStatic ?? []),
      identityKey: identityKey,
      registrationId: Buffer.from(pairing.eRegid ?? []).readUInt32BE(0),
      signedPreKey: {
        keyId: Buffer.from(pairing.eSkeyId ?? []).readUIntBE(0, 3),
        publicKey: Buffer.from(pairing.eSkeyVal ?? []),
        signature: Buffer.from(pairing.eSkeySig ?? []),
      },
      preKeys: new Map(),
      backlog: [],
      unanswered: new Map(),
      bootstrapped: false,
    };
    this.devices.set(deviceJid(device), device);
    this.forgetRegistration(connection);
    connection.send({ tag: 'stream:error', attrs: { code: '515' } });
    return device;
  }

  /** The phone removes a linked device: it is told (401) and can never log in again. */
  unlink(device: LinkedDevice): void {
    this.devices.delete(deviceJid(device));
    const connection = this.online.get(deviceJid(device));
    if (!connection) return;
    connection.send({
      tag: 'stream:error',
      attrs: { code: '401' },
      content: [{ tag: 'conflict', attrs: { type: 'device_removed' } }],
    });
    connection.close();
  }

  /**
   * The server ends a device's stream: `conflict` (440, another connection replaced it),
   * `restart` (515, reconnect at once) or `unknown` (a `<stream:error>` whose only child is a
   * condition Baileys does not know, which it reports as 500). Returns false when the device is
   * not connected.
   */
  endStream(device: LinkedDevice, error: 'conflict' | 'restart' | 'unknown'): boolean {
    const connection = this.connectionOf(device);
    if (!connection) return false;
    connection.send(streamError(error));
    connection.close();
    return true;
  }

  /** The device's TCP connection is reset (no close frame, no stream error). False when offline. */
  resetConnection(device: LinkedDevice): boolean {
    const connection = this.connectionOf(device);
    if (!connection) return false;
    connection.drop();
    return true;
  }

  /**
   * The server goes quiet on the device's connection: it stops answering pings and sending
   * anything, with TCP still open, until the device's keep-alive gives up. False when offline.
   */
  silenceConnection(device: LinkedDevice): boolean {
    const connection = this.connectionOf(device);
    if (!connection) return false;
    connection.silence();
    return true;
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

  private refusalStorm: number | 'unknown-stream-error' | null = null;

  /**
   * WhatsApp raises its minimum client version: logins announcing an older WhatsApp Web version
   * (`userAgent.appVersion`) get `<failure reason="405">`; null lifts the minimum.
   */
  requireClientVersion(version: readonly [number, number, number] | null): void {
    this.minimumVersion = version;
  }

  private minimumVersion: readonly [number, number, number] | null = null;

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

  private restartStorm = new Set<string>();

  /** Every successful login, oldest first, by device JID (`<phone>:<device>@s.whatsapp.net`). */
  readonly logins: string[] = [];

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

  /** The bundle a device JID publishes: a user's phone (device 0) or one of its linked devices. */
  bundleOf(jid: string): PreKeyBundle | undefined {
    const user = this.findUser(jid);
    if (!user) return undefined;
    const number = deviceNumberOf(jid);
    if (number === 0) return user.phone.bundle();
    const device = this.linkedDevices(user).find((candidate) => candidate.device === number);
    return device ? takePreKeyBundle(device) : undefined;
  }

  /** What a user's phone received from linked devices. */
  receivedBy(user: EmulatedUser): ReceivedMessage[] {
    return this.received.filter((message) => message.recipient === user);
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
    const jid = `1203630${String(this.nextGroup++).padStart(11, '0')}@g.us`;
    const group: EmulatedGroup = {
      jid,
      subject,
      creator,
      members: [creator, ...members.filter((member) => member !== creator)],
      creation: Number(unixNow()),
      addressing,
    };
    this.groups.set(jid, group);
    return group;
  }

  /**
   * What the recipient's phone gets when it opens a media message a device sent: the file
   * downloaded from the media host by its direct path, checked and decrypted (throws on a mismatch).
   */
  downloadMedia(received: ReceivedMessage): Promise<Buffer> {
    return downloadAndDecrypt(received.message, (where) => this.media.fetch(where));
  }

  /**
   * `from`'s phone sends `message` to every device `to` has linked, each encrypted with Signal for
   * that device (a pre-key message first); devices offline get it on their next login.
   */
  async sendMessage(
    from: EmulatedUser,
    to: EmulatedUser,
    message: proto.IMessage,
    options: SendOptions = {},
  ): Promise<string> {
    const devices = this.linkedDevices(to);
    if (devices.length === 0) throw new Error(`${to.phoneNumber} has no linked device`);
    const id = options.id ?? newMessageId();
    const envelope = this.lidAddressing.envelope(from, options.addressing);
    for (const device of devices) {
      const enc = await this.encryptFor(from.phone, device, message);
      const stanza = inboundMessageStanza({
        id,
        ...envelope,
        pushName: from.name,
        type: stanzaType(message),
        enc,
      });
      this.contactResends.remember(device, stanza, from, message);
      this.deliver(device, stanza);
    }
    return id;
  }

  /**
   * `from` sends `to`'s devices a message they cannot decrypt (a Signal message for a session the
   * device does not have, as after the PN→LID migration lost it; Baileys issue 2331): each device
   * answers with a retry receipt and Baileys emits a CIPHERTEXT stub instead of the message.
   * With `message`, the contact's phone answers each retry receipt by resending it in a fresh
   * session (ContactResends), the first `garbledResends` resends unreadable again.
   */
  sendUndecryptable(
    from: EmulatedUser,
    to: EmulatedUser,
    message?: proto.IMessage,
    garbledResends = 0,
  ): string {
    const devices = this.linkedDevices(to);
    if (devices.length === 0) throw new Error(`${to.phoneNumber} has no linked device`);
    const id = newMessageId();
    for (const device of devices) {
      const stanza = inboundMessageStanza({
        id,
        from: from.jid,
        attrs: {},
        pushName: from.name,
        type: message ? stanzaType(message) : 'text',
        enc: { type: 'msg', ciphertext: randomBytes(64) },
      });
      if (message) this.contactResends.remember(device, stanza, from, message, garbledResends);
      this.deliver(device, stanza);
    }
    return id;
  }

  /**
   * `from` sends `message` to the group `groupJid` (`…@g.us`), which `to`'s linked devices are in:
   * each device gets a pre-key message carrying `from`'s sender key, then the `skmsg`, with
   * `participant` naming the sender: by phone number, or in a LID-addressed group (`createGroup`'s,
   * or `addressing`) by LID with `participant_pn`.
   */
  async sendGroupMessage(
    from: EmulatedUser,
    groupJid: string,
    to: EmulatedUser,
    message: proto.IMessage,
    addressing: 'pn' | 'lid' = this.groups.get(groupJid)?.addressing ?? 'pn',
  ): Promise<string> {
    const devices = this.linkedDevices(to);
    if (devices.length === 0) throw new Error(`${to.phoneNumber} has no linked device`);
    const id = newMessageId();
    const { distribution, ciphertext } = await this.serially(() =>
      from.phone.encryptForGroup(groupJid, from.jid, paddedMessage(message)),
    );
    const senderKey: proto.IMessage = {
      senderKeyDistributionMessage: { groupId: groupJid, axolotlSenderKeyDistributionMessage: distribution },
    };
    for (const device of devices) {
      const enc = await this.encryptFor(from.phone, device, senderKey);
      this.deliver(
        device,
        inboundMessageStanza({
          id,
          from: groupJid,
          attrs: this.lidAddressing.participant(from, addressing),
          pushName: from.name,
          type: stanzaType(message),
          enc,
          extraEnc: [{ type: 'skmsg', ciphertext: Buffer.from(ciphertext) }],
        }),
      );
    }
    return id;
  }

  /**
   * `recipient`'s phone says it could not decrypt `message` (a retry receipt, count 1, with its
   * registration id): the sending device is expected to send it again, which lands in `received`
   * once more. Returns false when the sending device is not connected.
   */
  requestRetry(recipient: EmulatedUser, message: ReceivedMessage): boolean {
    const sender = this.devices.get(message.sender);
    const connection = sender ? this.connectionOf(sender) : undefined;
    if (!connection) return false;
    this.sendRetryReceipt(connection, recipient, message.id);
    return true;
  }

  /**
   * `recipient`'s phone fails to decrypt the next `times` messages linked devices send it (as after
   * a lost session): it keeps no plaintext, records the stanza in `undecryptable`, and answers
   * each with a retry receipt (count 1, 2, ... per message), so the device must send it again.
   */
  failToDecrypt(recipient: EmulatedUser, times = 1): void {
    this.decryptionFailures.set(recipient, times);
  }

  /** Stanzas a phone failed to decrypt on purpose (failToDecrypt), oldest first. */
  readonly undecryptable: { recipient: EmulatedUser; stanza: BinaryNode }[] = [];

  private sendRetryReceipt(connection: EmulatedConnection, recipient: EmulatedUser, id: string): void {
    const key = `${recipient.phoneNumber}/${id}`;
    const count = (this.retriesSent.get(key) ?? 0) + 1;
    this.retriesSent.set(key, count);
    const t = unixNow();
    connection.send({
      tag: 'receipt',
      attrs: { from: recipient.jid, id, type: 'retry', t },
      content: [
        { tag: 'retry', attrs: { count: String(count), id, t, v: '1' } },
        { tag: 'registration', attrs: {}, content: bigEndian(recipient.phone.registrationId, 4) },
      ],
    });
  }

  /** True (once per remaining failure) when `recipient`'s phone must fail this decryption. */
  private failsDecryption(recipient: EmulatedUser): boolean {
    const remaining = this.decryptionFailures.get(recipient) ?? 0;
    if (remaining <= 0) return false;
    this.decryptionFailures.set(recipient, remaining - 1);
    return true;
  }

  /** Hands a stanza to the device now, or keeps it for its next login (offline backlog). */
  deliver(device: LinkedDevice, stanza: BinaryNode): void {
    const connection = this.connectionOf(device);
    if (connection) {
      // Kept until the device answers it (receipt or ack): a connection that closes first hands it back.
      if (stanza.tag === 'message') device.unanswered.set(stanza.attrs.id ?? '', stanza);
      connection.send(stanza);
    } else {
      device.backlog.push({ ...stanza, attrs: { ...stanza.attrs, offline: '1' } });
    }
  }

  /** The device answered messages (a receipt or an ack): the server forgets them. */
  private answered(device: LinkedDevice, node: BinaryNode): void {
    const ids = [node.attrs.id, ...children(child(node, 'list')).map((item) => item.attrs.id)];
    for (const id of ids) if (id) device.unanswered.delete(id);
  }

  private encryptFor(
    party: SignalParty,
    device: LinkedDevice,
    message: proto.IMessage,
  ): Promise<{ type: SignalMessageType; ciphertext: Buffer }> {
    const address = deviceJid(device);
    return this.serially(async () => {
      if (!party.hasSession(address)) await party.startSession(address, takePreKeyBundle(device));
      return party.encrypt(address, paddedMessage(message));
    });
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.signalQueue.then(work);
    this.signalQueue = next.catch(() => undefined);
    return next;
  }

  /**
   * A device sent a message: every recipient phone (device 0) decrypts its copy; the server acks
   * to the sender and each recipient's phone sends a delivery receipt. A group message carries the
   * content once, as an `skmsg`, and pre-key copies of the sender key for members who lack it.
   */
  private async receiveFromDevice(
    device: LinkedDevice,
    connection: EmulatedConnection,
    node: BinaryNode,
  ): Promise<void> {
    const copies = children(child(node, 'participants')).map((to) => ({
      jid: to.attrs.jid ?? '',
      enc: child(to, 'enc'),
    }));
    const direct = child(node, 'enc');
    const skmsg = direct?.attrs.type === 'skmsg' ? direct : undefined;
    if (direct && !skmsg) copies.push({ jid: node.attrs.to ?? '', enc: direct });
    const chat = node.attrs.to ?? '';
    const id = node.attrs.id ?? '';
    const sender = deviceJid(device);
    connection.send({ tag: 'ack', attrs: { class: 'message', id, from: chat, t: unixNow() } });
    const readers = new Set<EmulatedUser>();
    for (const { jid, enc } of copies) {
      const recipient = this.findUser(jid);
      const ciphertext = bytesOf(enc);
      if (!recipient || !ciphertext || deviceNumberOf(jid) !== 0) continue;
      if (recipient !== device.user && this.failsDecryption(recipient)) {
        this.undecryptable.push({ recipient, stanza: node });
        this.sendRetryReceipt(connection, recipient, id);
        continue;
      }
      try {
        const type = enc?.attrs.type as SignalMessageType;
        const plaintext = await this.serially(() => recipient.phone.decrypt(sender, type, ciphertext));
        const message = unpaddedMessage(plaintext);
        const distribution = message.senderKeyDistributionMessage?.axolotlSenderKeyDistributionMessage;
        if (skmsg && distribution) {
          await this.serially(() => recipient.phone.processSenderKey(chat, sender, distribution));
          readers.add(recipient);
        } else this.keepReceived({ id, sender, chat, recipient, message, stanza: node }, device, connection);
      } catch (error) {
        this.failures.push({ stanza: node, error });
      }
    }
    const ciphertext = bytesOf(skmsg);
    if (!ciphertext) return;
    // Members who got the sender key with an earlier message read this one with it too.
    for (const member of this.groups.get(chat)?.members ?? []) {
      if (member.phone.hasSenderKey(chat, sender)) readers.add(member);
    }
    for (const recipient of readers) {
      try {
        const plaintext = await this.serially(() =>
          recipient.phone.decryptFromGroup(chat, sender, ciphertext),
        );
        const message = unpaddedMessage(plaintext);
        this.keepReceived({ id, sender, chat, recipient, message, stanza: node }, device, connection);
      } catch (error) {
        this.failures.push({ stanza: node, error });
      }
    }
  }

  /** A recipient's phone read a device's message: kept for assertions, and the phone's delivery receipt. */
  private keepReceived(
    received: ReceivedMessage,
    device: LinkedDevice,
    connection: EmulatedConnection,
  ): void {
    this.received.push(received);
    this.emit('received', received);
    if (received.recipient === device.user) return;
    const { id, chat, recipient } = received;
    connection.send({
      tag: 'receipt',
      attrs: chat.endsWith('@g.us')
        ? { from: chat, participant: recipient.jid, id, t: unixNow() }
        : { from: recipient.jid, id, t: unixNow() },
    });
  }

  // ── Connections ──

  private accept(connection: EmulatedConnection): void {
    connection.once('established', (payload: proto.ClientPayload) => {
      if (payload.devicePairingData) this.offerPairing(connection, payload.devicePairingData);
      else this.logIn(connection, payload);
    });
    connection.on('closed', () => {
      this.forgetRegistration(connection);
      for (const [jid, online] of this.online) {
        if (online !== connection) continue;
        this.online.delete(jid);
        const device = this.devices.get(jid);
        if (!device) continue;
        // What the device never answered is delivered again: now on its next login.
        const unanswered = [...device.unanswered.values()];
        device.unanswered.clear();
        for (const stanza of unanswered) this.deliver(device, stanza);
      }
    });
  }

  /** A new device registers: it gets QR refs to show (`pair-device`). */
  private offerPairing(
    connection: EmulatedConnection,
    pairing: proto.ClientPayload.IDevicePairingRegistrationData,
  ): void {
    const refs = Array.from({ length: QR_REFS }, () => `2@${randomBytes(24).toString('base64')}`);
    const registration: Registration = { connection, pairing, refs };
    for (const ref of refs) this.registrations.set(ref, registration);
    connection.on('node', (node: BinaryNode) => {
      if (node.tag !== 'iq' || (node.attrs.type !== 'get' && node.attrs.type !== 'set')) return;
      const codeReg = child(node, 'link_code_companion_reg');
      if (codeReg?.attrs.stage === 'companion_hello')
        connection.send(this.companionHello(registration, node, codeReg));
      else if (codeReg?.attrs.stage === 'companion_finish' && registration.codeRequest?.finish) {
        registration.codeRequest.finish(node);
      } else connection.send(iqError(node, 401, 'not-authorized'));
    });
    void connection
      .request({
        tag: 'iq',
        attrs: { from: 's.whatsapp.net', type: 'set', xmlns: 'md' },
        content: [
          {
            tag: 'pair-device',
            attrs: {},
            content: refs.map((ref) => ({ tag: 'ref', attrs: {}, content: ref })),
          },
        ],
      })
      .catch(() => undefined);
  }

  /** A registering device asks for a pairing code for a phone number: it gets a pairing ref. */
  private companionHello(registration: Registration, iq: BinaryNode, hello: BinaryNode): BinaryNode {
    const wrappedEphemeral = bytesOf(child(hello, 'link_code_pairing_wrapped_companion_ephemeral_pub'));
    const serverAuthKey = bytesOf(child(hello, 'companion_server_auth_key_pub'));
    if (
      !wrappedEphemeral ||
      !serverAuthKey?.equals(registration.connection.noise.clientStatic ?? Buffer.alloc(0))
    ) {
      return iqError(iq, 400, 'bad-request');
    }
    const ref = randomBytes(16);
    registration.codeRequest = { phoneJid: hello.attrs.jid ?? '', wrappedEphemeral, ref };
    return iqResult(iq, [
      {
        tag: 'link_code_companion_reg',
        attrs: {},
        content: [{ tag: 'link_code_pairing_ref', attrs: {}, content: ref }],
      },
    ]);
  }

  private forgetRegistration(connection: EmulatedConnection): void {
    for (const [ref, registration] of this.registrations) {
      if (registration.connection === connection) this.registrations.delete(ref);
    }
  }

  /**
   * A linked device logs in with its stored credentials: it must be a device the phone linked,
   * using the noise key it linked with; a device already connected elsewhere is replaced (440).
   */
  private logIn(connection: EmulatedConnection, payload: proto.ClientPayload): void {
    if (this.heldLogins) {
      this.heldLogins.push(() => {
        if (connection.noise.established && this.emulator.connections.has(connection))
          this.logIn(connection, payload);
      });
      return;
    }
    const jid = `${String(payload.username)}:${payload.device ?? 0}@s.whatsapp.net`;
    const device = this.devices.get(jid);
    const known = device !== undefined && connection.noise.clientStatic?.equals(device.noiseKey) === true;
    if (known && this.refusalStorm === 'unknown-stream-error') {
      this.refusedLogins += 1;
      connection.send(streamError('unknown'));
      connection.close();
      return;
    }
    const refusal = known
      ? (this.stormRefusal() ?? this.versionRefusal(payload) ?? this.takeLoginRefusal())
      : 401;
    if (!device || refusal !== null) {
      this.refusedLogins += 1;
      connection.send({ tag: 'failure', attrs: { reason: String(refusal ?? 401), location: 'emulator' } });
      connection.close();
      return;
    }
    const previous = this.online.get(jid);
    if (previous) {
      previous.send({
        tag: 'stream:error',
        attrs: {},
        content: [{ tag: 'conflict', attrs: { type: 'replaced' } }],
      });
      previous.close();
    }
    this.online.set(jid, connection);
    connection.on('node', (node: BinaryNode) => this.onDeviceNode(device, connection, node));
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
    this.replayBacklog(device, connection);
    if (!device.bootstrapped) {
      device.bootstrapped = true;
      this.sendPeerMessage(device, initialHistoryBootstrap()).catch((error: unknown) =>
        this.failures.push({ stanza: { tag: 'peer', attrs: {} }, error }),
      );
    }
  }

  /**
   * What waited for the device, in batches (OfflineBacklogReplay). Each stanza is kept until
   * answered like any delivery, and what was never sent goes back to the backlog when the
   * connection closes: a device that dies during its backlog gets the unanswered rest again.
   */
  private replayBacklog(device: LinkedDevice, connection: EmulatedConnection): void {
    const replay = new OfflineBacklogReplay(connection, device.backlog.splice(0), {
      deliver: (stanza) => this.deliver(device, stanza),
      unanswered: (id) => device.unanswered.has(id),
      completionAllowed: () => this.offlineCompletionAllowed(),
      batchLimit: this.offlineBatchLimit,
    });
    connection.on('node', (node: BinaryNode) => replay.onDeviceNode(node));
    // After the network's own 'closed' handler, which queued the unanswered stanzas first.
    connection.once('closed', () => device.backlog.push(...replay.takeUnsent()));
    replay.start();
  }

  /**
   * The largest offline batch the server sends (the device asks for 100 at a time); lower it to
   * make a backlog arrive in several batches.
   */
  offlineBatchLimit = Number.POSITIVE_INFINITY;

  /** Connections waiting to be told their backlog is complete (see holdOfflineCompletion). */
  private heldCompletions: (() => void)[] | null = null;

  /**
   * Withholds `<ib><offline>` (the end of the offline backlog) from every device until the returned
   * release is called: the backlog is delivered and answered, and Baileys still holds it in its
   * event buffer, as it does while a long backlog replays on the real service.
   */
  holdOfflineCompletion(): () => void {
    const held: (() => void)[] = (this.heldCompletions ??= []);
    return () => {
      if (this.heldCompletions === held) this.heldCompletions = null;
      for (const release of held.splice(0)) release();
    };
  }

  /** Devices whose backlog was delivered and answered but not yet completed (a hold is on). */
  get offlineCompletionsHeld(): number {
    return this.heldCompletions?.length ?? 0;
  }

  private offlineCompletionAllowed(): Promise<void> {
    const held = this.heldCompletions;
    return held ? new Promise((resolve) => held.push(resolve)) : Promise.resolve();
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

  /** The account's own phone sends one of its devices a peer message (history, app state keys). */
  private async sendPeerMessage(device: LinkedDevice, message: proto.IMessage): Promise<void> {
    const phone = device.user;
    const enc = await this.encryptFor(phone.phone, device, message);
    this.deliver(
      device,
      inboundMessageStanza({
        id: newMessageId(),
        from: phone.jid,
        attrs: { category: 'peer' },
        type: 'text',
        enc,
      }),
    );
  }

  private onDeviceNode(device: LinkedDevice, connection: EmulatedConnection, node: BinaryNode): void {
    if (node.tag === 'message') {
      void this.receiveFromDevice(device, connection, node);
      return;
    }
    if (node.tag === 'receipt' || (node.tag === 'ack' && node.attrs.class === 'message')) {
      this.answered(device, node);
      if (node.tag === 'receipt' && !this.mediaReupload.onReceipt(device, node))
        this.contactResends
          .onReceipt(device, node)
          .catch((error: unknown) => this.failures.push({ stanza: node, error }));
      return;
    }
    if (node.tag === 'iq' && node.attrs.xmlns === 'w:m' && child(node, 'media_conn')) {
      void this.media.mediaConnNode().then((mediaConn) => connection.send(iqResult(node, [mediaConn])));
      return;
    }
    if (node.tag === 'iq' && node.attrs.xmlns === 'w:g2') {
      connection.send(this.groupAdmin.answer(node, device.user));
      return;
    }
    if (node.tag === 'presence') return this.profiles.onPresence(device.user, node);
    if (node.tag === 'call') {
      const answer = this.calls.onDeviceCall(device, node);
      if (answer) connection.send(answer);
      return;
    }
    const profileAnswer = node.tag === 'iq' ? this.profiles.answer(node, device.user) : null;
    if (profileAnswer) return connection.send(profileAnswer);
    if (node.tag === 'iq' && (node.attrs.type === 'get' || node.attrs.type === 'set')) {
      connection.send(
        answerDeviceIq(node, {
          device,
          findUser: (jid) => this.findUser(jid),
          deviceNumbers: (user) => this.deviceNumbers(user),
          statusNode: (user) => this.profiles.statusNode(user),
          bundleOf: (jid) => this.bundleOf(jid),
          unlink: (removed) => this.devices.delete(deviceJid(removed)),
        }),
      );
    }
  }
}

/** The `<stream:error>` of a restart (515), a conflict (440) or a condition Baileys does not know. */
function streamError(error: 'conflict' | 'restart' | 'unknown'): BinaryNode {
  if (error === 'restart') return { tag: 'stream:error', attrs: { code: '515' } };
  const condition: BinaryNode =
    error === 'conflict'
      ? { tag: 'conflict', attrs: { type: 'replaced' } }
      : { tag: 'emulator-unknown-condition', attrs: {} };
  return { tag: 'stream:error', attrs: {}, content: [condition] };
}

/** `user:3@server` → 3; no device part → 0 (the phone). */
function deviceNumberOf(jid: string): number {
  return Number(jid.split('@')[0]?.split(':')[1] ?? 0);
}

function unixNow(): string {
  return String(Math.floor(Date.now() / 1000));
}
