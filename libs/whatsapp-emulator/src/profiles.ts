import type { BinaryNode } from '@whiskeysockets/baileys';
import type { EmulatedUser } from './emulated-user';
import { bytesOf, child, children, iqError, iqResult } from './iq-nodes';

/** A user's profile as the server keeps it. */
export interface EmulatedProfile {
  /** The push name the user's device announced (`<presence name=…>`), if any. */
  name: string | null;
  about: string | null;
  /** When the about was set (seconds since the epoch). */
  aboutSetAt: number;
  /** The picture's bytes as the device uploaded them, and the id the server gave them. */
  picture: { bytes: Buffer; id: number } | null;
  /** JIDs (LIDs, as Baileys sends them) the user blocked. */
  blocked: Set<string>;
}

/**
 * The server's side of profiles: the push name a device announces with its presence, the about
 * (`status` IQ, read back through usync's status protocol), the picture (`w:profile:picture`),
 * and the blocklist (`blocklist`).
 */
export class EmulatedProfiles {
  private readonly byUser = new Map<EmulatedUser, EmulatedProfile>();
  private pictureIds = 0;

  constructor(
    /** The user a JID (PN or LID) belongs to. */
    private readonly findUser: (jid: string) => EmulatedUser | undefined,
    /** Where pictures are served from (the URL a device reads back). */
    private readonly pictureHost = 'https://pps.whatsapp.net',
  ) {}

  of(user: EmulatedUser): EmulatedProfile {
    let profile = this.byUser.get(user);
    if (!profile) {
      profile = { name: null, about: null, aboutSetAt: 0, picture: null, blocked: new Set() };
      this.byUser.set(user, profile);
    }
    return profile;
  }

  /** A contact's about, set from their phone (tests). */
  setAbout(user: EmulatedUser, about: string, at = new Date()): void {
    Object.assign(this.of(user), { about, aboutSetAt: Math.floor(at.getTime() / 1000) });
  }

  /** A contact's picture, set from their phone (tests). */
  setPicture(user: EmulatedUser, bytes: Buffer): void {
    this.of(user).picture = { bytes, id: ++this.pictureIds };
  }

  /** The URL a picture is served at. */
  pictureUrl(user: EmulatedUser): string | null {
    const picture = this.of(user).picture;
    return picture ? `${this.pictureHost}/v/t61/${user.phoneNumber}.jpg?id=${picture.id}` : null;
  }

  /** A device's `<presence>`: its `name` is the user's push name. */
  onPresence(user: EmulatedUser, presence: BinaryNode): void {
    if (presence.attrs.name) this.of(user).name = presence.attrs.name;
  }

  /** usync's status protocol: what the asker reads of `user`'s about. */
  statusNode(user: EmulatedUser | undefined): BinaryNode {
    const profile = user ? this.of(user) : null;
    if (!profile?.about) return { tag: 'status', attrs: { code: '401' } };
    return {
      tag: 'status',
      attrs: { t: String(profile.aboutSetAt) },
      content: Buffer.from(profile.about, 'utf-8'),
    };
  }

  /** The answer to a profile IQ from `user`'s device, or null when the IQ is none of these. */
  answer(iq: BinaryNode, user: EmulatedUser): BinaryNode | null {
    const { xmlns, type } = iq.attrs;
    if (xmlns === 'status' && type === 'set') return this.setAboutIq(iq, user);
    if (xmlns === 'w:profile:picture' && type === 'set') return this.setPictureIq(iq, user);
    if (xmlns === 'w:profile:picture' && type === 'get') return this.pictureIq(iq);
    if (xmlns === 'blocklist' && type === 'set') return this.blockIq(iq, user);
    if (xmlns === 'blocklist' && type === 'get') {
      const items = [...this.of(user).blocked].map((jid) => ({ tag: 'item', attrs: { jid } }));
      return iqResult(iq, [{ tag: 'list', attrs: {}, content: items }]);
    }
    return null;
  }

  private setAboutIq(iq: BinaryNode, user: EmulatedUser): BinaryNode {
    const about = bytesOf(child(iq, 'status'));
    if (about === undefined) return iqError(iq, 400, 'bad-request');
    this.setAbout(user, about.toString('utf-8'));
    return iqResult(iq);
  }

  private setPictureIq(iq: BinaryNode, user: EmulatedUser): BinaryNode {
    // A target is a group or another user: only one's own picture is emulated.
    if (iq.attrs.target) return iqError(iq, 403, 'forbidden');
    const bytes = bytesOf(child(iq, 'picture'));
    if (!bytes || bytes.length === 0) return iqError(iq, 400, 'bad-request');
    this.setPicture(user, bytes);
    return iqResult(iq, [{ tag: 'picture', attrs: { id: String(this.pictureIds) } }]);
  }

  private pictureIq(iq: BinaryNode): BinaryNode {
    const owner = this.findUser(iq.attrs.target ?? '');
    const url = owner ? this.pictureUrl(owner) : null;
    if (!owner || !url) return iqError(iq, 404, 'item-not-found');
    const id = String(this.of(owner).picture?.id ?? 0);
    return iqResult(iq, [{ tag: 'picture', attrs: { id, type: 'image', url, direct_path: `/v/t61/${id}` } }]);
  }

  private blockIq(iq: BinaryNode, user: EmulatedUser): BinaryNode {
    const blocked = this.of(user).blocked;
    for (const item of children(iq).filter((node) => node.tag === 'item')) {
      const jid = item.attrs.jid;
      if (!jid) return iqError(iq, 400, 'bad-request');
      if (item.attrs.action === 'block') blocked.add(jid);
      else if (item.attrs.action === 'unblock') blocked.delete(jid);
      else return iqError(iq, 400, 'bad-request');
    }
    return iqResult(iq);
  }
}
