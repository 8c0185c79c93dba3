import { pictureKind, PROFILE_PICTURE_MAX_BYTES } from '@jumbe/contracts';
import { jidNormalizedUser } from '@whiskeysockets/baileys';
import { NetworkSendError } from '../network-send-error';
import type { ContactProfile, IncomingCall, OwnProfile, ProfilePicture, ProfileUpdate } from '../profile';
import { fetchMedia, type MediaFetchSettings } from './media-content';
import type { WhatsAppSocket } from './whatsapp-socket';

/** The Baileys socket's profile, block and call methods (chats.js, messages-recv.js). */
export interface ProfileSocket {
  readonly user?: { id: string; name?: string | undefined } | undefined;
  updateProfileStatus(status: string): Promise<void>;
  updateProfilePicture(jid: string, content: Buffer): Promise<void>;
  profilePictureUrl(jid: string, type?: 'preview' | 'image', timeoutMs?: number): Promise<string | undefined>;
  fetchStatus(...jids: string[]): Promise<unknown[] | undefined>;
  updateBlockStatus(jid: string, action: 'block' | 'unblock'): Promise<void>;
  rejectCall(callId: string, callFrom: string): Promise<void>;
  sendPresenceUpdate(type: 'available' | 'unavailable', toJid?: string): Promise<void>;
}

/** What the profile actions need beyond the socket. */
export interface ProfileContext {
  /** The stored credentials' `me` (Baileys reads the name it announces from there). */
  me(): { id: string; name?: string | undefined | null } | undefined;
  /** Stores the credentials after `me.name` changed. */
  saveCreds(): Promise<void>;
  /** How a picture URL is fetched (the media sends' settings, the picture's size limit). */
  fetchSettings: MediaFetchSettings;
}

/** The socket's profile methods; a socket without them (a test fake) cannot do profile actions. */
export function profileSocket(socket: WhatsAppSocket): ProfileSocket {
  const candidate = socket as WhatsAppSocket & Partial<ProfileSocket>;
  if (
    typeof candidate.updateProfileStatus !== 'function' ||
    typeof candidate.fetchStatus !== 'function' ||
    typeof candidate.rejectCall !== 'function'
  ) {
    throw new NetworkSendError('network_error', 'this connection cannot change profiles');
  }
  return candidate as unknown as ProfileSocket;
}

export async function readOwnProfile(socket: ProfileSocket, context: ProfileContext): Promise<OwnProfile> {
  const me = context.me();
  if (!me) throw new NetworkSendError('session_not_connected', 'the session is not linked');
  const own = jidNormalizedUser(me.id);
  const [about, pictureUrl] = await Promise.all([aboutOf(socket, own), pictureOf(socket, own)]);
  return { name: me.name ?? socket.user?.name ?? null, about: about.about, pictureUrl };
}

/**
 * Changes what `update` names, in this order: picture (the step most likely refused), about,
 * name. The name is what the number announces in its presence (`<presence name=…>`), as
 * WhatsApp Web does, so it is stored in the credentials and announced at once.
 */
export async function updateOwnProfile(
  socket: ProfileSocket,
  context: ProfileContext,
  update: ProfileUpdate,
): Promise<void> {
  const me = context.me();
  if (!me) throw new NetworkSendError('session_not_connected', 'the session is not linked');
  if (update.picture) {
    const bytes = await pictureBytes(update.picture, context.fetchSettings);
    await socket.updateProfilePicture(jidNormalizedUser(me.id), bytes);
  }
  if (update.about !== undefined) await socket.updateProfileStatus(update.about);
  if (update.name !== undefined) {
    me.name = update.name;
    await context.saveCreds();
    // Not 'available': that would mark the number online and silence the phone's notifications.
    await socket.sendPresenceUpdate('unavailable');
  }
}

export async function readContactProfile(socket: ProfileSocket, jid: string): Promise<ContactProfile> {
  const [about, pictureUrl] = await Promise.all([aboutOf(socket, jid), pictureOf(socket, jid)]);
  return { pictureUrl, about: about.about, aboutSetAt: about.setAt };
}

export async function setBlocked(socket: ProfileSocket, jid: string, blocked: boolean): Promise<void> {
  await socket.updateBlockStatus(jid, blocked ? 'block' : 'unblock');
}

export async function rejectCall(socket: ProfileSocket, call: IncomingCall): Promise<void> {
  await socket.rejectCall(call.id, call.from);
}

/** The about of `jid` (usync's status protocol); null when hidden or never set. */
async function aboutOf(
  socket: ProfileSocket,
  jid: string,
): Promise<{ about: string | null; setAt: Date | null }> {
  const list = (await socket.fetchStatus(jid)) ?? [];
  const entry = list[0] as { status?: { status?: string | null; setAt?: Date } | null } | undefined;
  const about = entry?.status?.status ?? null;
  const setAt = entry?.status?.setAt;
  return {
    about: about === '' ? null : about,
    setAt: about && setAt && setAt.getTime() > 0 ? setAt : null,
  };
}

/** The picture's URL; WhatsApp answers an error (404, 401) when there is none or it is hidden. */
async function pictureOf(socket: ProfileSocket, jid: string): Promise<string | null> {
  try {
    return (await socket.profilePictureUrl(jid, 'image')) ?? null;
  } catch (error) {
    if (isNoPicture(error)) return null;
    throw error;
  }
}

function isNoPicture(error: unknown): boolean {
  // Baileys' error for an IQ answered with an error: a Boom whose `data` is the error's code.
  const code = (error as { data?: unknown } | null)?.data;
  const message = error instanceof Error ? error.message : '';
  return code === 404 || code === 401 || /item-not-found|not-authorized/.test(message);
}

/** The picture's bytes, from the request or its URL (SSRF-safe), checked to be JPEG or PNG. */
async function pictureBytes(picture: ProfilePicture, settings: MediaFetchSettings): Promise<Buffer> {
  let bytes: Buffer;
  if ('data' in picture) bytes = picture.data;
  else {
    const fetched = await fetchMedia(picture.url, { ...settings, maxBytes: PROFILE_PICTURE_MAX_BYTES });
    try {
      bytes = fetched.body;
    } finally {
      fetched.release();
    }
  }
  if (bytes.length > PROFILE_PICTURE_MAX_BYTES)
    throw new NetworkSendError(
      'media_fetch_failed',
      `the picture is larger than ${PROFILE_PICTURE_MAX_BYTES} bytes`,
    );
  if (pictureKind(bytes) === null)
    throw new NetworkSendError('media_fetch_failed', 'the picture must be a JPEG or PNG image');
  return bytes;
}
