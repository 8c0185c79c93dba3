import { ApiError } from '@jumbe/contracts';
import { Controller, Get, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiKeyAuthenticator } from '../auth/api-key-authenticator';
import { CustomerAuthGuard } from '../auth/customer-auth.guard';
import type { CustomerContext } from '../auth/principal';
import { presentedDashboardTokenHash } from '../auth/dashboard-token';
import type { PresentedCredential } from '../auth/presented-credential';
import { presentedKeyHash } from '../auth/presented-key';
import { Customer } from '../auth/customer.decorator';
import { ValidQuery } from '../http/validated-input.decorators';
import { eventStreamQuerySchema } from './event-stream-query';
import { EventStreams } from './event-streams';
import { SseSink } from './sse-sink';
import type { StreamSink } from './stream-sink';
import { pendingUpgrade } from './websocket-upgrades';
import { WebSocketSink } from './websocket-sink';

/**
 * `GET /api/v1/events` (CONTRACT §11): the account's events as they happen, as a WebSocket or as
 * Server-Sent Events (`Accept: text/event-stream`). The guard admits it like any route (one API
 * hit per stream opened, none for a dashboard session's; a `read` key suffices); the stream then
 * runs outside Nest's reply.
 */
@Controller('api/v1/events')
@UseGuards(CustomerAuthGuard)
export class EventsController {
  constructor(
    private readonly streams: EventStreams,
    private readonly authenticator: ApiKeyAuthenticator,
  ) {}

  @Get()
  async open(
    @Customer() customer: CustomerContext,
    @ValidQuery(eventStreamQuerySchema) query: { types?: string; since?: string },
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const upgrade = pendingUpgrade(request.raw);
    if (upgrade === undefined && !acceptsEventStream(request.headers.accept)) {
      throw new ApiError(
        'validation_error',
        'This route streams events: open it as a WebSocket, or send "Accept: text/event-stream" for Server-Sent Events.',
        [{ path: '/Accept', problem: 'text/event-stream, or a WebSocket upgrade' }],
      );
    }
    const opening = await this.streams.prepare(
      customer.access.accountId,
      query,
      request.headers['last-event-id'],
      this.credentialOf(request),
    );
    reply.hijack();
    let sink: StreamSink;
    try {
      sink = upgrade ? new WebSocketSink(await upgrade.accept()) : new SseSink(reply.raw, reply.getHeaders());
    } catch {
      // The handshake failed (ws answered it) or the client left: nothing to stream to, nothing to answer.
      opening.release();
      await opening.cursor.close().catch(() => undefined);
      return;
    }
    void this.streams.run(opening, sink);
  }

  /** What the stream's heartbeats check again: the dashboard session's token, or the key. */
  private credentialOf(request: FastifyRequest): PresentedCredential {
    const tokenHash = presentedDashboardTokenHash(request.headers);
    return tokenHash === null
      ? { kind: 'key', hash: presentedKeyHash(request, this.authenticator) }
      : { kind: 'dashboard', tokenHash };
  }
}

function acceptsEventStream(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept);
}
