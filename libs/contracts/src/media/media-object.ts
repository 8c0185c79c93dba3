import { createHash } from 'node:crypto';

/**
 * Inbound media files travel from the worker that downloads them to the gateway that streams them
 * through a store (JetStream's Object Store; a folder of the data dir in the all-in-one), never
 * through a request/reply: bus messages have a size limit.
 */
export const MEDIA_BUCKET = 'jumbe-media';

/** How long a downloaded file stays in the store (asking again later downloads it again). */
export const MEDIA_OBJECT_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a worker may take to download a file into the store; the gateway waits this long on
 * top of its usual command timeout.
 */
export const MEDIA_DOWNLOAD_TIMEOUT_MS = 60_000;

/** The Object Store bucket of a deployment (each deployment sharing a NATS server has its own). */
export function mediaBucketName(deployment: string | null): string {
  return deployment ? `${MEDIA_BUCKET}-${deployment}` : MEDIA_BUCKET;
}

/** The file's name in the store: fixed by the account, session and message, and opaque. */
export function mediaObjectName(ref: { accountId: string; sessionId: string }, messageId: string): string {
  return createHash('sha256')
    .update(JSON.stringify([ref.accountId, ref.sessionId, messageId]))
    .digest('hex');
}

/** What the store keeps beside a file, to serve it with the right headers. */
export interface MediaObjectMeta {
  mimetype: string;
  fileName: string | null;
}

export interface MediaObjectInfo extends MediaObjectMeta {
  size: number;
  /** When it was stored. */
  storedAt: Date;
}

/**
 * Files customers upload to send (multipart `POST /messages/media`) travel from the gateway to the
 * worker through a store of their own (same kinds as received media, another bucket or folder).
 * The gateway removes a file once the worker answered the send; a file whose send never got an
 * answer (a gateway or worker stopped mid-send) expires by itself after this long.
 */
export const UPLOAD_OBJECT_TTL_MS = 60 * 60 * 1000;

/** The uploads bucket of a deployment. */
export function uploadBucketName(deployment: string | null): string {
  return `${mediaBucketName(deployment)}-uploads`;
}
