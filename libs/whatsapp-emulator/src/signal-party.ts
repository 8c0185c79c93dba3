import { jidDecode } from '@whiskeysockets/baileys';
import { randomBytes } from 'node:crypto';
import {
  GroupCipher,
  GroupSessionBuilder,
  SenderKeyDistributionMessage,
  SenderKeyName,
  SenderKeyRecord,
} from '@whiskeysockets/baileys/lib/Signal/Group/index.js';

// libsignal is Baileys' own (untyped beyond a sketch) dependency: the parts used here, typed.
interface SignalKeyPair {
  pubKey: Buffer;
  privKey: Buffer;
}
interface SessionEntryLike {
  currentRatchet: { rootKey: Buffer };
  chains(): Iterable<[Buffer, { chainKey: { key?: Buffer } }]>;
}
interface SessionRecordLike {
  haveOpenSession(): boolean;
  getSessions(): SessionEntryLike[];
  serialize(): object;
}
interface Libsignal {
  SessionRecord: { deserialize(data: object): SessionRecordLike };
  ProtocolAddress: new (name: string, device: number) => { toString(): string };
  SessionBuilder: new (storage: object, address: object) => { initOutgoing(bundle: object): Promise<void> };
  SessionCipher: new (
    storage: object,
    address: object,
  ) => {
    encrypt(data: Buffer): Promise<{ type: number; body: string }>;
    decryptPreKeyWhisperMessage(data: Buffer): Promise<Buffer>;
    decryptWhisperMessage(data: Buffer): Promise<Buffer>;
  };
  keyhelper: {
    generateIdentityKeyPair(): SignalKeyPair;
    generateRegistrationId(): number;
    generateSignedPreKey(
      identity: SignalKeyPair,
      id: number,
    ): { keyId: number; keyPair: SignalKeyPair; signature: Buffer };
    generatePreKey(id: number): { keyId: number; keyPair: SignalKeyPair };
  };
}
const libsignal = require('libsignal') as Libsignal;

/** What a party publishes so others can start a session with it (keys without the 0x05 prefix). */
export interface PreKeyBundle {
  readonly registrationId: number;
  readonly identityKey: Buffer;
  readonly signedPreKey: { readonly keyId: number; readonly publicKey: Buffer; readonly signature: Buffer };
  readonly preKey?: { readonly keyId: number; readonly publicKey: Buffer };
}

export type SignalMessageType = 'pkmsg' | 'msg';

const withPrefix = (key: Buffer): Buffer =>
  key.length === 33 ? key : Buffer.concat([Buffer.from([5]), key]);
const withoutPrefix = (key: Buffer): Buffer => (key.length === 33 ? key.subarray(1) : key);

/** A JID's Signal address, as Baileys names it (`user[_domain].device`). */
export function signalAddress(jid: string): { toString(): string } {
  const decoded = jidDecode(jid);
  if (!decoded?.user) throw new Error(`not a user JID: ${jid}`);
  const domain = decoded.domainType ?? 0;
  const name = domain === 0 ? decoded.user : `${decoded.user}_${domain}`;
  return new libsignal.ProtocolAddress(name, decoded.device ?? 0);
}

/**
 * One Signal identity (a contact's phone, or our account's phone) with its keys and sessions in
 * memory, using the same libsignal Baileys uses, so what it encrypts Baileys decrypts and back.
 */
export class SignalParty {
  readonly identity = libsignal.keyhelper.generateIdentityKeyPair();
  readonly registrationId = libsignal.keyhelper.generateRegistrationId();
  private readonly signedPreKey = libsignal.keyhelper.generateSignedPreKey(this.identity, 1);
  private readonly preKeys = new Map<number, SignalKeyPair>();
  private readonly sessions = new Map<string, SessionRecordLike>();
  private readonly identities = new Map<string, Buffer>();
  private nextPreKeyId = 1;
  private readonly senderKeys = new Map<string, SenderKeyRecord>();
  /** Baileys' sender-key store interface, in memory (group messages). */
  private readonly senderKeyStore = {
    loadSenderKey: async (name: SenderKeyName) =>
      this.senderKeys.get(name.toString()) ?? new SenderKeyRecord(),
    storeSenderKey: async (name: SenderKeyName, record: SenderKeyRecord) =>
      void this.senderKeys.set(name.toString(), record),
  };

  /** Libsignal's storage interface, in memory. */
  private readonly storage = {
    loadSession: async (id: string) => this.sessions.get(id),
    storeSession: async (id: string, record: SessionRecordLike) => void this.sessions.set(id, record),
    isTrustedIdentity: (id: string, key: Buffer) => {
      this.identities.set(id, Buffer.from(key));
      return true;
    },
    loadPreKey: async (id: number) => this.preKeys.get(Number(id)),
    removePreKey: (id: number) => void this.preKeys.delete(Number(id)),
    loadSignedPreKey: () => this.signedPreKey.keyPair,
    getOurRegistrationId: () => this.registrationId,
    getOurIdentity: () => this.identity,
  };

  /**
   * The same storage for decryptions, loading each session as a copy: libsignal changes the record
   * while it decrypts and stores it only on success, so a failed decryption (`Bad MAC`) leaves the
   * state as it was, as a real client's store does. (Encryptions do not fail halfway, and skip the
   * copy's cost.)
   */
  private readonly decryptionStorage = {
    ...this.storage,
    loadSession: async (id: string) => {
      const record = this.sessions.get(id);
      return record && libsignal.SessionRecord.deserialize(record.serialize());
    },
  };

  /** The identity public key, 32 bytes. */
  get identityKey(): Buffer {
    return withoutPrefix(this.identity.pubKey);
  }

  /** The identity key pair as Baileys' Curve takes it (public without the 0x05 prefix). */
  get identityKeyPair(): { private: Buffer; public: Buffer } {
    return { private: this.identity.privKey, public: this.identityKey };
  }

  /** A bundle with a fresh one-time pre-key (as the server hands out one per fetch). */
  bundle(): PreKeyBundle {
    const preKey = libsignal.keyhelper.generatePreKey(this.nextPreKeyId++);
    this.preKeys.set(preKey.keyId, preKey.keyPair);
    return {
      registrationId: this.registrationId,
      identityKey: this.identityKey,
      signedPreKey: {
        keyId: this.signedPreKey.keyId,
        publicKey: withoutPrefix(this.signedPreKey.keyPair.pubKey),
        signature: this.signedPreKey.signature,
      },
      preKey: { keyId: preKey.keyId, publicKey: withoutPrefix(preKey.keyPair.pubKey) },
    };
  }

  hasSession(jid: string): boolean {
    return this.sessions.get(signalAddress(jid).toString())?.haveOpenSession() ?? false;
  }

  /** This party still holds one-time pre-key `keyId` (a pre-key message built on it uses it up). */
  hasPreKey(keyId: number): boolean {
    return this.preKeys.has(keyId);
  }

  /**
   * The session with `jid` stops matching the other side's (as when the sender went on from older
   * Signal state after a hand-over): its root and chain keys are replaced with random ones, so the
   * next message `jid` sends under it fails with `Bad MAC`. A fresh session (a new pre-key message)
   * still works.
   */
  divergeSession(jid: string): void {
    for (const session of this.sessions.get(signalAddress(jid).toString())?.getSessions() ?? []) {
      session.currentRatchet.rootKey = randomBytes(32);
      for (const [, chain] of session.chains()) {
        if (chain.chainKey.key) chain.chainKey.key = randomBytes(32);
      }
    }
  }

  /** Starts a session with `jid` from its published bundle. */
  async startSession(jid: string, bundle: PreKeyBundle): Promise<void> {
    await new libsignal.SessionBuilder(this.storage, signalAddress(jid)).initOutgoing({
      registrationId: bundle.registrationId,
      identityKey: withPrefix(bundle.identityKey),
      signedPreKey: { ...bundle.signedPreKey, publicKey: withPrefix(bundle.signedPreKey.publicKey) },
      ...(bundle.preKey
        ? { preKey: { ...bundle.preKey, publicKey: withPrefix(bundle.preKey.publicKey) } }
        : {}),
    });
  }

  async encrypt(
    jid: string,
    plaintext: Uint8Array,
  ): Promise<{ type: SignalMessageType; ciphertext: Buffer }> {
    const cipher = new libsignal.SessionCipher(this.storage, signalAddress(jid));
    const { type, body } = await cipher.encrypt(Buffer.from(plaintext));
    return { type: type === 3 ? 'pkmsg' : 'msg', ciphertext: Buffer.from(body, 'binary') };
  }

  async decrypt(jid: string, type: SignalMessageType, ciphertext: Uint8Array): Promise<Buffer> {
    const cipher = new libsignal.SessionCipher(this.decryptionStorage, signalAddress(jid));
    const data = Buffer.from(ciphertext);
    return type === 'pkmsg' ? cipher.decryptPreKeyWhisperMessage(data) : cipher.decryptWhisperMessage(data);
  }

  /**
   * Encrypts for a group with this party's sender key in it (as `ownJid`): the sender key
   * distribution message to hand each member's devices first, and the `skmsg` ciphertext.
   */
  async encryptForGroup(
    groupJid: string,
    ownJid: string,
    plaintext: Uint8Array,
  ): Promise<{ distribution: Uint8Array; ciphertext: Uint8Array }> {
    const address = signalAddress(ownJid) as unknown as { id: string; deviceId: number };
    const name = new SenderKeyName(groupJid, address);
    const distribution = await new GroupSessionBuilder(this.senderKeyStore).create(name);
    const ciphertext = await new GroupCipher(this.senderKeyStore, name).encrypt(plaintext);
    return { distribution: distribution.serialize(), ciphertext };
  }

  /** Keeps the sender key `senderJid` (a device) distributed for `groupJid` (a `senderKeyDistributionMessage`). */
  async processSenderKey(groupJid: string, senderJid: string, distribution: Uint8Array): Promise<void> {
    const message = new SenderKeyDistributionMessage(null, null, null, null, distribution);
    await new GroupSessionBuilder(this.senderKeyStore).process(senderKeyName(groupJid, senderJid), message);
  }

  /** This party holds `senderJid`'s sender key for the group (it can read its `skmsg`). */
  hasSenderKey(groupJid: string, senderJid: string): boolean {
    return this.senderKeys.has(senderKeyName(groupJid, senderJid).toString());
  }

  /** Decrypts a group `skmsg` from `senderJid` with the sender key it distributed earlier. */
  async decryptFromGroup(groupJid: string, senderJid: string, ciphertext: Uint8Array): Promise<Uint8Array> {
    return new GroupCipher(this.senderKeyStore, senderKeyName(groupJid, senderJid)).decrypt(ciphertext);
  }
}

/** Baileys' name for a sender key: the group and the sending device's Signal address. */
function senderKeyName(groupJid: string, senderJid: string): SenderKeyName {
  return new SenderKeyName(groupJid, signalAddress(senderJid) as unknown as { id: string; deviceId: number });
}
