import {
  aesDecryptGCM,
  aesEncryptGCM,
  Curve,
  decodeBinaryNode,
  encodeBinaryNode,
  hkdf,
  NOISE_MODE,
  NOISE_WA_HEADER,
  proto,
  WA_CERT_DETAILS,
  type BinaryNode,
} from '@whiskeysockets/baileys';
import { createHash } from 'node:crypto';
import { EMULATOR_ROOT, newKeyPair, type CurveKeyPair } from './root-key';

const sha256 = (data: Uint8Array): Buffer => createHash('sha256').update(data).digest();
const EMPTY = Buffer.alloc(0);

function ivFor(counter: number): Buffer {
  const iv = Buffer.alloc(12);
  iv.writeUInt32BE(counter, 8);
  return iv;
}

/** The emulator's noise certificate chain: root (ours) → intermediate → leaf (the server's static key). */
export function certificateChain(serverStatic: Buffer, root: CurveKeyPair = EMULATOR_ROOT): Uint8Array {
  const intermediate = newKeyPair();
  const now = Math.floor(Date.now() / 1000);
  const intermediateDetails = proto.CertChain.NoiseCertificate.Details.encode({
    serial: 1,
    issuerSerial: WA_CERT_DETAILS.SERIAL,
    key: intermediate.public,
    notBefore: now - 60,
    notAfter: now + 86_400,
  }).finish();
  const leafDetails = proto.CertChain.NoiseCertificate.Details.encode({
    serial: 2,
    issuerSerial: 1,
    key: serverStatic,
    notBefore: now - 60,
    notAfter: now + 86_400,
  }).finish();
  return proto.CertChain.encode({
    intermediate: { details: intermediateDetails, signature: Curve.sign(root.private, intermediateDetails) },
    leaf: { details: leafDetails, signature: Curve.sign(intermediate.private, leafDetails) },
  }).finish();
}

/**
 * The server side of WhatsApp Web's Noise_XX_25519_AESGCM_SHA256 handshake, mirroring Baileys'
 * Utils/noise-handler step for step (one counter shared by encrypt and decrypt, reset on every
 * key mix), then the transport: length-prefixed frames of encrypted binary nodes.
 */
export class NoiseServerSession {
  private hash: Buffer;
  private salt: Buffer;
  private key: Buffer;
  private counter = 0;
  private readonly ephemeral = newKeyPair();
  private transport: { enc: Buffer; dec: Buffer; readCounter: number; writeCounter: number } | null = null;
  private inBytes = EMPTY;
  private introSeen = false;
  /** The ClientPayload the client sent in its clientFinish (registration or login). */
  clientPayload: proto.ClientPayload | null = null;
  /** The client's static noise public key. */
  clientStatic: Buffer | null = null;

  constructor(
    private readonly serverStatic: CurveKeyPair = newKeyPair(),
    /** The certificate chain for `serverStatic` (signing is slow in libsignal's pure-JS curve: share it). */
    private readonly chain: Uint8Array = certificateChain(serverStatic.public),
  ) {
    const mode = Buffer.from(NOISE_MODE);
    this.hash = mode.length === 32 ? mode : sha256(mode);
    this.salt = this.hash;
    this.key = this.hash;
  }

  get established(): boolean {
    return this.transport !== null;
  }

  private authenticate(data: Uint8Array): void {
    if (!this.transport) this.hash = sha256(Buffer.concat([this.hash, data]));
  }

  private encrypt(plaintext: Uint8Array): Buffer {
    const result = aesEncryptGCM(plaintext, this.key, ivFor(this.counter++), this.hash);
    this.authenticate(result);
    return result;
  }

  private decrypt(ciphertext: Uint8Array): Buffer {
    const result = aesDecryptGCM(Buffer.from(ciphertext), this.key, ivFor(this.counter++), this.hash);
    this.authenticate(ciphertext);
    return result;
  }

  private mixIntoKey(data: Uint8Array): void {
    const out = Buffer.from(hkdf(Buffer.from(data), 64, { salt: this.salt, info: '' }));
    this.salt = out.subarray(0, 32);
    this.key = out.subarray(32);
    this.counter = 0;
  }

  /** Splits incoming bytes into frames (dropping the intro header of the first); returns raw frames. */
  private frames(data: Uint8Array): Buffer[] {
    this.inBytes = Buffer.concat([this.inBytes, data]);
    if (!this.introSeen) {
      if (this.inBytes.length < 4) return [];
      if (this.inBytes[0] === 0x45 && this.inBytes[1] === 0x44) {
        // "ED" routing-info prefix: 7 bytes + routing info, then the WA header.
        if (this.inBytes.length < 7) return [];
        const routingLength = (this.inBytes[4] << 16) | this.inBytes.readUInt16BE(5);
        if (this.inBytes.length < 7 + routingLength + 4) return [];
        this.inBytes = this.inBytes.subarray(7 + routingLength);
      }
      const header = this.inBytes.subarray(0, 4);
      if (!header.equals(NOISE_WA_HEADER)) throw new Error('unexpected noise header');
      this.authenticate(header);
      this.inBytes = this.inBytes.subarray(4);
      this.introSeen = true;
    }
    const out: Buffer[] = [];
    while (this.inBytes.length >= 3) {
      const size = (this.inBytes[0] << 16) | (this.inBytes[1] << 8) | this.inBytes[2];
      if (this.inBytes.length < size + 3) break;
      out.push(this.inBytes.subarray(3, size + 3));
      this.inBytes = this.inBytes.subarray(size + 3);
    }
    return out;
  }

  private static frame(data: Uint8Array): Buffer {
    const out = Buffer.alloc(3 + data.byteLength);
    out[0] = (data.byteLength >>> 16) & 0xff;
    out[1] = (data.byteLength >>> 8) & 0xff;
    out[2] = data.byteLength & 0xff;
    out.set(data, 3);
    return out;
  }

  /** Answers the clientHello: the server hello with our ephemeral, static key and certificate chain. */
  private serverHello(clientEphemeral: Uint8Array): Buffer {
    this.authenticate(clientEphemeral);
    this.authenticate(this.ephemeral.public);
    this.mixIntoKey(Curve.sharedKey(this.ephemeral.private, Buffer.from(clientEphemeral)));
    const staticEnc = this.encrypt(this.serverStatic.public);
    this.mixIntoKey(Curve.sharedKey(this.serverStatic.private, Buffer.from(clientEphemeral)));
    const payloadEnc = this.encrypt(this.chain);
    const hello = proto.HandshakeMessage.encode({
      serverHello: { ephemeral: this.ephemeral.public, static: staticEnc, payload: payloadEnc },
    }).finish();
    return NoiseServerSession.frame(hello);
  }

  private clientFinish(finish: proto.HandshakeMessage.IClientFinish): void {
    if (!finish.static || !finish.payload) throw new Error('incomplete clientFinish');
    const clientStatic = this.decrypt(finish.static);
    this.mixIntoKey(Curve.sharedKey(this.ephemeral.private, clientStatic));
    this.clientPayload = proto.ClientPayload.decode(this.decrypt(finish.payload));
    this.clientStatic = clientStatic;
    const out = Buffer.from(hkdf(EMPTY, 64, { salt: this.salt, info: '' }));
    // The client writes with the first half and reads with the second.
    this.transport = { dec: out.subarray(0, 32), enc: out.subarray(32), readCounter: 0, writeCounter: 0 };
  }

  /**
   * Feeds bytes received from the client. Returns raw bytes to send back (during the handshake)
   * and the binary nodes decoded from transport frames.
   */
  async receive(data: Uint8Array): Promise<{ reply: Buffer[]; nodes: BinaryNode[] }> {
    const reply: Buffer[] = [];
    const nodes: BinaryNode[] = [];
    for (const frame of this.frames(data)) {
      if (this.transport) {
        const plain = aesDecryptGCM(frame, this.transport.dec, ivFor(this.transport.readCounter++), EMPTY);
        nodes.push(await decodeBinaryNode(plain));
        continue;
      }
      const message = proto.HandshakeMessage.decode(frame);
      if (message.clientHello?.ephemeral) reply.push(this.serverHello(message.clientHello.ephemeral));
      else if (message.clientFinish) this.clientFinish(message.clientFinish);
      else throw new Error('unexpected handshake message');
    }
    return { reply, nodes };
  }

  /** A transport frame carrying one binary node. */
  encodeNode(node: BinaryNode): Buffer {
    if (!this.transport) throw new Error('noise transport not established');
    const plain = encodeBinaryNode(node);
    const cipher = aesEncryptGCM(plain, this.transport.enc, ivFor(this.transport.writeCounter++), EMPTY);
    return NoiseServerSession.frame(cipher);
  }
}
