import type { NetworkGroups } from './network-groups';
import type { OutboundMessage } from './outbound-message';
import type { ContactProfile, IncomingCall, OwnProfile, ProfileUpdate } from './profile';
import type { SentKey } from './sent-key';

export type ChatPresence = 'typing' | 'recording' | 'paused';

export interface NumberLookup {
  onWhatsApp: boolean;
  /** The JID to send to, or null when the number is not on WhatsApp. */
  recipientId: string | null;
}

/** How one send is to be made. */
export interface SendOptions {
  /**
   * When the caller stops waiting (epoch ms): nothing of the send may leave after it, so a caller
   * that gave up (504: outcome unknown) never finds it delivered after all. Undefined: no limit.
   */
  readonly replyBy?: number;
}

/** One open connection of one session to the network, as returned by NetworkDriver.open. */
export interface NetworkSession {
  /** Switches a session waiting for a QR scan to pairing-code login; emits `pairing_code`. */
  requestPairingCode(phoneNumber: string): Promise<string>;
  /** Sends one message of any kind; fails with NetworkSendError. */
  send(message: OutboundMessage, options?: SendOptions): Promise<SentKey>;
  /**
   * A caller learned sent message `messageId`'s id after all (a retry under the same send id was
   * answered with it in time, after the first try's answer came too late): the network may now
   * deliver it however it can, as any send answered with its id. False when it will never be
   * delivered (it was given up and reported failed): the retry is to be sent anew. Optional: a
   * network that never holds a late send back need not offer it.
   */
  sendLearned?(messageId: string): boolean;
  /** Marks received messages of `chat` as read (blue ticks); `chat` is a JID. */
  markRead(chat: string, messageIds: string[]): Promise<void>;
  /** Shows "typing…" or "recording audio…" in `chat`, or stops showing it. */
  sendPresence(chat: string, state: ChatPresence): Promise<void>;
  /** Whether `phoneNumber` (digits) is on WhatsApp, and the JID to send it. */
  lookUp(phoneNumber: string): Promise<NumberLookup>;
  /** The number's own name, about and picture (CONTRACT §11). */
  readProfile(): Promise<OwnProfile>;
  /** Changes the number's name, about and/or picture; a bad picture fails with NetworkSendError. */
  updateProfile(update: ProfileUpdate): Promise<void>;
  /** A contact's picture URL and about (`jid`: the contact's JID). */
  contactProfile(jid: string): Promise<ContactProfile>;
  /** Blocks (`true`) or unblocks a contact. */
  setBlocked(jid: string, blocked: boolean): Promise<void>;
  /** Declines a ringing call; the caller sees it declined. */
  rejectCall(call: IncomingCall): Promise<void>;
  /** The number's groups: list, create, read and change them (CONTRACT §11). */
  groups(): NetworkGroups;
  /** Unlinks the device; emits `disconnected`/`logged_out`. The caller clears the stored credentials. */
  logout(): Promise<void>;
  /**
   * Planned stop (shutdown, shard hand-over): no reconnect, no logout, credentials kept. Emits
   * `disconnected`/`shutdown` before it resolves, so every connection ends with exactly one
   * `disconnected`; callers that are handing over must not record that as the session's state.
   */
  close(): Promise<void>;
}
