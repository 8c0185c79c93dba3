import type { JumbeConfig } from '@jumbe/config';
import { ApiError, failuresQuerySchema, OUTBOUND_KINDS } from '@jumbe/contracts';
import { Controller, Get, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { CustomerAuthGuard, type CustomerRequest } from '../auth/customer-auth.guard';
import { orUnavailable } from '../http/dependency-failure';
import type { CustomerContext } from '../auth/principal';
import { Customer, customerOf } from '../auth/customer.decorator';
import { ValidQuery } from '../http/validated-input.decorators';
import { CONFIG } from '../gateway.tokens';
import { SendFailureLog } from '../ports/send-failure-log';
import { UploadStore } from '../ports/upload-store';
import { readMediaUpload } from './media-upload-reader';
import { MessageSender, type MessageKind } from './message-sender';

/**
 * Message routes (CONTRACT §5): `POST /api/v1/messages/{kind}` for every kind of the contract's
 * message union (declared below the class), and the failed-send log. Bodies are validated by
 * MessageSender so failures are logged.
 */
@Controller('api/v1/messages')
@UseGuards(CustomerAuthGuard)
export class MessagesController {
  constructor(
    private readonly sender: MessageSender,
    private readonly failures: SendFailureLog,
    private readonly uploads: UploadStore,
    @Inject(CONFIG) private readonly config: JumbeConfig,
  ) {}

  @Get('failures')
  async list(
    @Customer() customer: CustomerContext,
    @ValidQuery(failuresQuerySchema) query: z.output<typeof failuresQuerySchema>,
  ) {
    const failures = await orUnavailable('database', () =>
      this.failures.list(customer.access.accountId, { sessionId: query.sessionId, limit: query.limit }),
    );
    return {
      data: failures.map(({ accountId: _accountId, createdAt, ...failure }) => ({
        ...failure,
        createdAt: createdAt.toISOString(),
      })),
    };
  }

  /**
   * The send routes take the request and the reply only, and read the rest from them: each
   * parameter Nest resolves is a promise and an allocation per request, on the busiest route.
   */
  async send(request: CustomerRequest, kind: MessageKind, reply: FastifyReply) {
    const key = request.headers['idempotency-key'];
    if (isMultipart(request)) return this.sendUpload(request, kind, reply, key);
    const outcome = await this.sender.send(
      customerOf(request),
      kind,
      request.body,
      typeof key === 'string' ? key : undefined,
    );
    void reply.status(outcome.status);
    return outcome.body;
  }

  /** A media send with the file itself (multipart/form-data), streamed to the upload store. */
  private async sendUpload(
    request: CustomerRequest,
    kind: MessageKind,
    reply: FastifyReply,
    key: string | string[] | undefined,
  ) {
    if (kind !== 'media') {
      throw new ApiError(
        'unsupported_media_type',
        'Only POST /api/v1/messages/media takes multipart/form-data (a file upload); send this body as application/json.',
      );
    }
    let upload;
    const fields: Record<string, string> = {};
    try {
      upload = await readMediaUpload(request, this.uploads, this.config.mediaMaxBytes, fields);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // The rest of the body is never read: the connection closes after the answer.
      if (error.code !== 'validation_error') void reply.header('connection', 'close');
      await this.sender.refused(customerOf(request), 'media', fields, error);
      throw error;
    }
    const outcome = await this.sender.sendUpload(
      customerOf(request),
      upload,
      typeof key === 'string' ? key : undefined,
    );
    void reply.status(outcome.status);
    return outcome.body;
  }
}

/** Whether @fastify/multipart took the body (`multipart/form-data`), leaving it unread. */
function isMultipart(request: CustomerRequest): boolean {
  const decorated = request as CustomerRequest & { isMultipart?: () => boolean };
  return typeof decorated.isMultipart === 'function' && decorated.isMultipart();
}

/**
 * One send route per kind, from the contract's list of kinds: a new kind is a new route with no
 * code here. Each is the handler Nest's decorators would declare, `(request, reply)`, as a method
 * named `send_<kind>` (the decorators are the same functions, applied here instead of written).
 */
for (const kind of OUTBOUND_KINDS) {
  const name = `send_${kind}`;
  const prototype = MessagesController.prototype as unknown as Record<string, unknown>;
  prototype[name] = function (this: MessagesController, request: CustomerRequest, reply: FastifyReply) {
    return this.send(request, kind, reply);
  };
  Req()(prototype, name, 0);
  Res({ passthrough: true })(prototype, name, 1);
  const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
  if (descriptor) Post(kind)(prototype, name, descriptor);
}
