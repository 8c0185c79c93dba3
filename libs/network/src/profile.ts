/** The number's own profile, as the network has it. */
export interface OwnProfile {
  name: string | null;
  about: string | null;
  pictureUrl: string | null;
}

/** What a contact shows this number: null where they have none or hide it. */
export interface ContactProfile {
  pictureUrl: string | null;
  about: string | null;
  aboutSetAt: Date | null;
}

/** A new profile picture: a public URL to fetch (SSRF-safe, like media sends) or the bytes. */
export type ProfilePicture = { url: string } | { data: Buffer };

/** A change of the number's own profile; absent fields stay as they are. */
export interface ProfileUpdate {
  name?: string | undefined;
  about?: string | undefined;
  picture?: ProfilePicture | undefined;
}

/** A call offered to the number (it rings). */
export interface IncomingCall {
  id: string;
  /** The caller's JID (a phone number's, or a LID). */
  from: string;
  /** The caller's number, digits only, when the network gives it. */
  callerPhone: string | null;
  video: boolean;
  group: boolean;
  groupJid: string | null;
  offeredAt: Date;
}
