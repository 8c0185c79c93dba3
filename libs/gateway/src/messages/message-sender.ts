import {
  ApiError,
  type OutboundKind,
  type OutboundMessage,
  parseInput,
  SEND_BODIES,
  sendMediaUploadFieldsSchema,
} from '@jumbe/contracts';
import { DEFAULT_SESSION_ID } from '@jumbe/domain';
import { UrlPolicy } from '@jumbe/egress';
import { countSend } from '@jumbe/telemetry';
import type { JumbeConfig } from '@jumbe/config';
import type { Logger } from 'pino';
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { orUnavailable } from '../http/dependency-failure';
import type { CustomerContext } from '../auth/principal';
import { CONFIG, LOGGER } from '../gateway.tokens';
import { UsageMeter } from '../metering/usage-meter';
import { IdempotencyStore } from '../ports/idempotency-store';
import { SendFailureLog } from '../ports/send-failure-log';
import { UploadStore } from '../ports/upload-store';
import { SessionCommandClient } from '../sessions/session-command.client';
import type { ReceivedUpload } from './media-upload-reader';

export type MessageKind = OutboundKind;

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export interface SendOutcome {
  status: number;
  body: unknown;
}

/**
 * The send path: validate, check the media URL, honour Idempotency-Key, hand the message to the
 * worker that owns the session, count it. Every failure is logged as a failed send and counted
 * (CONTRACT §5), those the worker reports (not connected, network errors) included: here, once.
 */
@Injectable()
export class MessageSender {
  private readonly urls: UrlPolicy;

  constructor(
    private readonly commands: SessionCommandClient,
    private readonly meter: UsageMeter,
    private readonly failures: SendFailureLog,
    private readonly idempotency: IdempotencyStore,
    private readonly uploads: UploadStore,
    @Inject(CONFIG) config: JumbeConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.urls = new UrlPolicy({ allowPrivateNetworks: config.allowPrivateNetworks });
  }

  async send(
    customer: CustomerContext,
    kind: MessageKind,
    rawBody: unknown,
    idempotencyKey: string | undefined,
    upload?: ReceivedUpload,
  ): Promise<SendOutcome> {
    const accountId = customer.access.accountId;
    let claimed: string | null = null;
    let sendId: string | undefined;
    let afterUnknownOutcome = false;
    try {
      const { sessionId, message } = upload
        ? uploadedMediaSend(upload)
        : parseInput(SEND_BODIES[kind], rawBody ?? {});
      if ('url' in message && message.url !== undefined) await this.checkMediaUrl(message.url);
      if (idempotencyKey !== undefined) {
        // An upload's key covers its fields and the file's digest: the same file and fields replay.
        const request = upload ? { fields: rawBody, sha256: upload.sha256 } : rawBody;
        const claim = await this.claim(accountId, idempotencyKey, kind, request);
        if (claim.replay) return claim.replay;
        const { requestHash } = claim;
        afterUnknownOutcome = claim.afterUnknownOutcome;
        claimed = idempotencyKey;
        sendId = sendIdOf(idempotencyKey, requestHash);
      }
      const result = await this.commands.send(
        { type: 'message.send', accountId, sessionId, message, ...(sendId ? { sendId } : {}) },
        customer.requestId,
      );
      const outcome = { status: 200, body: { message: 'Message sent', data: result } };
      this.meter.count(accountId, 'messagesSent');
      countSend(kind, 'sent');
      if (claimed) await this.rememberAnswer(accountId, claimed, outcome);
      return outcome;
    } catch (caught) {
      const error = afterUnknownOutcome ? stillUnknown(caught) : caught;
      countSend(kind, error instanceof ApiError ? error.code : 'internal');
      if (claimed) {
        const outcomeUnknown = error instanceof ApiError && error.code === 'timeout';
        await (
          outcomeUnknown
            ? this.idempotency.releaseUnknown(accountId, claimed)
            : this.idempotency.release(accountId, claimed)
        ).catch(() => undefined);
      }
      if (error instanceof ApiError && error.code !== 'idempotency_conflict') {
        await this.recordFailure(accountId, kind, rawBody, error);
      }
      throw error;
    }
  }

  /**
   * A media send whose file came with the request (multipart): sent like any other, then the
   * file is removed from the upload store once the worker answered, sent or not. Only when the
   * answer never came (504: the worker may still be reading it) is it left to expire by itself.
   */
  async sendUpload(
    customer: CustomerContext,
    upload: ReceivedUpload,
    idempotencyKey: string | undefined,
  ): Promise<SendOutcome> {
    let keep = false;
    try {
      return await this.send(customer, 'media', upload.fields, idempotencyKey, upload);
    } catch (error) {
      keep = error instanceof ApiError && error.code === 'timeout';
      throw error;
    } finally {
      if (!keep) {
        await this.uploads
          .remove(upload.name)
          .catch((failure: unknown) =>
            this.logger.warn({ code: (failure as { code?: unknown }).code }, 'uploaded file not removed'),
          );
      }
    }
  }

  /**
   * Stores a sent message's answer for its Idempotency-Key's replays. The message has left: a
   * failure here (PostgreSQL going down right after the send) must not answer it as failed (the
   * fault schedule: a 500 for a message the contact got). The key stays in flight until it expires,
   * so a retry under it is refused rather than sent twice.
   */
  private async rememberAnswer(accountId: string, key: string, outcome: SendOutcome): Promise<void> {
    try {
      await this.idempotency.complete(accountId, key, outcome.status, outcome.body);
    } catch (error) {
      this.logger.warn(
        { code: (error as { code?: unknown }).code },
        'a sent message answered without storing its Idempotency-Key replay',
      );
    }
  }

  /** A send refused before it could be parsed (a malformed upload): counted and logged like any. */
  async refused(
    customer: CustomerContext,
    kind: MessageKind,
    rawBody: unknown,
    error: ApiError,
  ): Promise<void> {
    countSend(kind, error.code);
    await this.recordFailure(customer.access.accountId, kind, rawBody, error);
  }

  private async checkMediaUrl(url: string): Promise<void> {
    const verdict = await this.urls.check(url);
    if (!verdict.ok) {
      const problem = verdict.reason;
      throw new ApiError('invalid_media_url', `Invalid request body: /url: ${problem}`, [
        { path: '/url', problem },
      ]);
    }
  }

  /**
   * Claims the key for this request (`replay` null), or answers with the first response (or a
   * conflict); `requestHash` is what the key's record holds of the request.
   */
  private async claim(
    accountId: string,
    key: string,
    kind: MessageKind,
    rawBody: unknown,
  ): Promise<{ replay: SendOutcome | null; requestHash: string; afterUnknownOutcome: boolean }> {
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw new ApiError('validation_error', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', [
        { path: 'header:idempotency-key', problem: 'must be 1 to 255 visible ASCII characters' },
      ]);
    }
    const hash = createHash('sha256')
      .update(`${kind}\n${JSON.stringify(rawBody)}`)
      .digest('hex');
    const claim = await orUnavailable('database', () => this.idempotency.claim(accountId, key, hash));
    switch (claim.kind) {
      case 'new':
        return { replay: null, requestHash: hash, afterUnknownOutcome: claim.afterUnknownOutcome === true };
      case 'replay':
        return {
          replay: { status: claim.statusCode, body: claim.response },
          requestHash: hash,
          afterUnknownOutcome: false,
        };
      case 'conflict':
        throw new ApiError(
          'idempotency_conflict',
          'This Idempotency-Key was already used with a different request body. Use a new key for a new message.',
        );
      case 'in_flight':
        throw new ApiError(
          'idempotency_conflict',
          'A request with this Idempotency-Key is still being processed. Retry after it completes.',
        );
    }
  }

  private async recordFailure(
    accountId: string,
    kind: MessageKind,
    rawBody: unknown,
    error: ApiError,
  ): Promise<void> {
    this.meter.count(accountId, 'sendFailures');
    const body = typeof rawBody === 'object' && rawBody !== null ? (rawBody as Record<string, unknown>) : {};
    // The refused values are the client's, NUL bytes and broken UTF-16 included: made storable
    // here, or PostgreSQL would refuse the very record that explains the refusal.
    const sessionId =
      typeof body['sessionId'] === 'string' ? storable(body['sessionId'].slice(0, 64)) : DEFAULT_SESSION_ID;
    const to = typeof body['to'] === 'string' ? storable(body['to'].slice(0, 128)) : null;
    await this.failures
      .record({
        accountId,
        sessionId,
        to,
        type: kind,
        code: error.code,
        message: storable(error.message.slice(0, 2_000)),
      })
      .catch((failure: unknown) =>
        this.logger.warn({ code: (failure as { code?: unknown }).code }, 'failed send not recorded'),
      );
  }
}

/**
 * The message of a multipart media send: the form's fields, validated like the JSON body's (the
 * part's Content-Type standing in for an absent `mimetype`), with the stored file for `url`.
 */
function uploadedMediaSend(upload: ReceivedUpload): { sessionId: string; message: OutboundMessage } {
  const fields =
    upload.fields['mimetype'] === undefined && upload.mimetype !== undefined
      ? { ...upload.fields, mimetype: upload.mimetype }
      : upload.fields;
  const { sessionId, ...media } = parseInput(sendMediaUploadFieldsSchema, fields);
  const file = {
    name: upload.name,
    size: upload.size,
    ...(upload.fileName ? { fileName: upload.fileName } : {}),
  };
  return { sessionId, message: { ...media, kind: 'media', upload: file } };
}

/** NUL and unpaired surrogates, which PostgreSQL text cannot hold, as U+FFFD. */
function storable(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- NUL is what must go
    /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '\uFFFD',
  );
}

/**
 * A retry of a try that timed out (it may have been sent) that could not reach a worker now: the
 * first try's outcome is still unknown, so the answer stays 504, not a 503 that reads "not sent"
 * (the fault schedule's seed 6: a send caught by a NATS outage was answered 504, its retry 503,
 * and it had reached the contact). The worker that made it answers a later retry with its key.
 */
function stillUnknown(error: unknown): unknown {
  if (!(error instanceof ApiError) || !STILL_UNKNOWN_WHEN.has(error.code)) return error;
  return new ApiError(
    'timeout',
    'An earlier try with this Idempotency-Key may have been sent and its outcome is still unknown: retry later with the same key.',
    undefined,
    { 'Retry-After': '2' },
  );
}

/** Answers that say only that no worker could be asked now. */
const STILL_UNKNOWN_WHEN = new Set(['unavailable', 'session_restoring', 'media_busy']);

/**
 * The worker's id of one Idempotency-Key's send (SessionCommand `sendId`): the same on every try
 * of the same request, so a try whose answer was lost (504, the key released) is answered by the
 * worker with the message it sent instead of a second one; another body under the key (after its
 * record expired) is another send. The account is not in it: the worker scopes ids by session.
 */
function sendIdOf(idempotencyKey: string, requestHash: string): string {
  return createHash('sha256').update(`${idempotencyKey}\n${requestHash}`).digest('base64url');
}
