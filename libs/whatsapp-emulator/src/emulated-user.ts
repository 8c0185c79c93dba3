import { newKeyPair } from './root-key';
import { SignalParty } from './signal-party';

/**
 * A WhatsApp user of the emulated network: a phone number, a LID, and the phone itself (device 0),
 * which is a Signal party and holds the account key that signs the devices it links.
 */
export class EmulatedUser {
  /** The phone's account signing key (ADV): it vouches for every device it links. */
  readonly accountKey = newKeyPair();
  /** The phone (device 0) as a Signal party: it encrypts and decrypts as the user. */
  readonly phone = new SignalParty();

  constructor(
    /** Digits only, e.g. `254700000001`. */
    readonly phoneNumber: string,
    /** The LID user part (digits), e.g. `100000000000001`. */
    readonly lidUser: string,
    /** The push name other users see. */
    readonly name: string,
  ) {}

  /** `254700000001@s.whatsapp.net`. */
  get jid(): string {
    return `${this.phoneNumber}@s.whatsapp.net`;
  }

  /** `100000000000001@lid`. */
  get lid(): string {
    return `${this.lidUser}@lid`;
  }
}
