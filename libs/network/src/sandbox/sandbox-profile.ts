import { pictureKind, PROFILE_PICTURE_MAX_BYTES } from '@jumbe/contracts';
import { NetworkSendError } from '../network-send-error';
import type { ContactProfile, IncomingCall, OwnProfile, ProfileUpdate } from '../profile';

/** What every sandbox contact shows: the about WhatsApp gives new accounts, no picture. */
export const SANDBOX_CONTACT_ABOUT = 'Hey there! I am using WhatsApp.';

/**
 * A sandbox number's profile, blocked contacts and declined calls, kept by its connection (the
 * sandbox has no phone to keep them): a new connection starts with a blank profile. A picture
 * is checked as WhatsApp's would be (JPEG or PNG within the limit) but not fetched: the sandbox
 * reaches nothing outside (its URL stands in for the picture).
 */
export class SandboxProfile {
  private name: string | null = null;
  private about: string | null = null;
  private pictureUrl: string | null = null;
  private readonly blocked = new Set<string>();
  /** Calls the session declined, newest last (a few are kept for tests and the tour). */
  readonly rejectedCalls: IncomingCall[] = [];

  constructor(private readonly sessionId: string) {}

  read(): OwnProfile {
    return { name: this.name, about: this.about, pictureUrl: this.pictureUrl };
  }

  update(update: ProfileUpdate): void {
    if (update.picture) {
      if ('data' in update.picture) {
        if (
          update.picture.data.length > PROFILE_PICTURE_MAX_BYTES ||
          pictureKind(update.picture.data) === null
        )
          throw new NetworkSendError('media_fetch_failed', 'the picture must be a JPEG or PNG image');
        this.pictureUrl = `https://sandbox.invalid/profile/${encodeURIComponent(this.sessionId)}.jpg`;
      } else this.pictureUrl = update.picture.url;
    }
    if (update.about !== undefined) this.about = update.about;
    if (update.name !== undefined) this.name = update.name;
  }

  contact(_jid: string): ContactProfile {
    return { pictureUrl: null, about: SANDBOX_CONTACT_ABOUT, aboutSetAt: null };
  }

  setBlocked(jid: string, blocked: boolean): void {
    if (blocked) this.blocked.add(jid);
    else this.blocked.delete(jid);
  }

  isBlocked(jid: string): boolean {
    return this.blocked.has(jid);
  }

  rejected(call: IncomingCall): void {
    this.rejectedCalls.push(call);
    if (this.rejectedCalls.length > 50) this.rejectedCalls.shift();
  }
}
