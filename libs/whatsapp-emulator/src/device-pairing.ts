import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import { randomBytes } from 'node:crypto';
import { signedDeviceIdentity, verifyDeviceSignature } from './device-identity';
import type { NetworkDirectory } from './directory';
import type { EmulatedConnection } from './emulator';
import type { EmulatedUser } from './emulated-user';
import { bytesOf, child, iqError, iqResult, unixNow } from './iq-nodes';
import type { LinkedDevice } from './linked-device';
import { parseLinkingQr } from './linking-qr';
import { newMessageId } from './message-stanzas';
import { advSecretFromFinish, unwrapWithCode, wrapWithCode } from './pairing-code';
import { newKeyPair } from './root-key';

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

/** How many QR refs a registering device gets (Baileys shows one after the other). */
const QR_REFS = 6;

/**
 * Linking a new device to a phone, by QR or by pairing code: the server hands a registering
 * device QR refs (`pair-device`) or a pairing ref (`companion_hello`), the phone scans or types
 * the code, and the pairing ends with a `pair-success` signed by the phone's account key, the
 * device's counter-signature checked, the device recorded in the directory and a 515 restart.
 */
export class DevicePairing {
  private readonly registrations = new Map<string, Registration>();

  constructor(private readonly directory: NetworkDirectory) {}

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
    const number = Math.max(0, ...this.directory.deviceNumbers(phone)) + 1;
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
    this.directory.link(device);
    this.forgetRegistration(connection);
    connection.send({ tag: 'stream:error', attrs: { code: '515' } });
    return device;
  }

  /** A new device registers: it gets QR refs to show (`pair-device`). */
  offerPairing(
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

  /** The device's connection closed (or it linked): its QR and pairing refs are void. */
  forgetRegistration(connection: EmulatedConnection): void {
    for (const [ref, registration] of this.registrations) {
      if (registration.connection === connection) this.registrations.delete(ref);
    }
  }
}
