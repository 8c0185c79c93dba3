import {
  aesEncryptGCM,
  type BinaryNode,
  getContentType,
  hkdf,
  normalizeMessageContent,
  proto,
} from '@whiskeysockets/baileys';
import { randomBytes } from 'node:crypto';
import { child } from './iq-nodes';
import type { LinkedDevice } from './linked-device';
import type { EmulatedMediaHost } from './media-host';

interface MediaFields {
  directPath?: string | null;
  mediaKey?: Uint8Array | null;
}

export interface MediaReuploadDeps {
  readonly host: EmulatedMediaHost;
  /** The message with this id the account's phone received (it got every copy its devices got). */
  findReceived(device: LinkedDevice, id: string): proto.IMessage | undefined;
  send(device: LinkedDevice, node: BinaryNode): void;
}

/**
 * The account's phone re-uploading a media file whose CDN copy expired, when a linked device asks
 * (Baileys' `updateMediaMessage`): the device sends `<receipt type="server-error">` with the
 * message key in `<rmr>`; the phone puts the file back on the CDN under a new direct path and the
 * server hands the device `<notification type="mediaretry">` carrying a `MediaRetryNotification`
 * sealed with the retry key (HKDF of the media key, AES-GCM, the message id as associated data),
 * or `<error code>` when the phone cannot (`phoneKeepsMedia` false, or an unknown message).
 */
export class PhoneMediaReupload {
  /** Re-uploads answered, by message id, for assertions. */
  readonly reuploaded: string[] = [];
  /** False: the phone no longer has the files (deleted, or the phone is gone): requests fail. */
  phoneKeepsMedia = true;

  constructor(private readonly deps: MediaReuploadDeps) {}

  /** Handles a device's receipt; false when it is no re-upload request. */
  onReceipt(device: LinkedDevice, receipt: BinaryNode): boolean {
    if (receipt.attrs.type !== 'server-error') return false;
    const id = receipt.attrs.id ?? '';
    const rmr = child(receipt, 'rmr');
    const media = this.mediaOf(this.deps.findReceived(device, id));
    const kept = media?.directPath ? this.deps.host.original(media.directPath) : undefined;
    if (!this.phoneKeepsMedia || !media?.mediaKey || !kept) {
      this.deps.send(device, mediaRetryNode(device, id, rmr, [errorNode()]));
      return true;
    }
    const { directPath } = this.deps.host.keep(kept.body, kept.uploadPath);
    const notice = proto.MediaRetryNotification.encode({
      stanzaId: id,
      directPath,
      result: proto.MediaRetryNotification.ResultType.SUCCESS,
    }).finish();
    const iv = randomBytes(12);
    const key = hkdf(media.mediaKey, 32, { info: 'WhatsApp Media Retry Notification' });
    const sealed = aesEncryptGCM(notice, key, iv, Buffer.from(id));
    const encrypt: BinaryNode = {
      tag: 'encrypt',
      attrs: {},
      content: [
        { tag: 'enc_p', attrs: {}, content: sealed },
        { tag: 'enc_iv', attrs: {}, content: iv },
      ],
    };
    this.reuploaded.push(id);
    this.deps.send(device, mediaRetryNode(device, id, rmr, [encrypt]));
    return true;
  }

  private mediaOf(message: proto.IMessage | undefined): MediaFields | undefined {
    const content = normalizeMessageContent(message);
    const type = content ? getContentType(content) : undefined;
    return content && type ? (content[type] as MediaFields | undefined) : undefined;
  }
}

function mediaRetryNode(
  device: LinkedDevice,
  id: string,
  rmr: BinaryNode | undefined,
  content: BinaryNode[],
): BinaryNode {
  return {
    tag: 'notification',
    attrs: {
      from: device.user.jid,
      type: 'mediaretry',
      id,
      t: String(Math.floor(Date.now() / 1000)),
    },
    content: [...content, rmr ?? { tag: 'rmr', attrs: {} }],
  };
}

/** The phone could not re-upload: `NOT_FOUND` (Baileys turns it into a 404). */
function errorNode(): BinaryNode {
  return {
    tag: 'error',
    attrs: { code: String(proto.MediaRetryNotification.ResultType.NOT_FOUND) },
  };
}
