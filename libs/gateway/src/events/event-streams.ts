import { ApiError } from '@jumbe/contracts';
import { LiveEventsLostError } from '@jumbe/messaging';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Logger } from 'pino';
import { AccountDirectory } from '../auth/account-directory';
import { ApiKeyAuthenticator } from '../auth/api-key-authenticator';
import { DashboardSessions } from '../auth/dashboard-sessions';
import type { PresentedCredential } from '../auth/presented-credential';
import { orUnavailable, unavailable } from '../http/dependency-failure';
import { LOGGER } from '../gateway.tokens';
import { WebhookStore } from '../ports/webhook-store';
import { AccountStreamSlots, STREAMS_PER_ACCOUNT } from './account-stream-slots';
import { lastSeenEventId, streamEventTypes } from './event-stream-query';
import { MAX_UNSENT_BYTES, pumpEvents } from './event-pump';
import { type LiveEventCursor, LiveEventFeed, type LiveEventPosition } from '../ports/live-event-feed';
import { planResume, type ResumePlan } from './resume-plan';
import type { StreamSink } from './stream-sink';

/** A stream sends a heartbeat this often, and checks then that its key may still read. */
export const HEARTBEAT_MS = 15_000;

/** A stream checked and ready to run: its account's slot is held until it ends. */
export interface StreamOpening {
  accountId: string;
  types: string[];
  lastSeen: number | null;
  plan: ResumePlan;
  position: LiveEventPosition;
  cursor: LiveEventCursor;
  /** The key (or dashboard session) that opened it, checked again at every heartbeat. */
  credential: PresentedCredential;
  release: () => void;
}

/**
 * The live event streams of this gateway (`GET /api/v1/events`): what each may carry, the
 * per-account bound, and each one's life from its `stream.start` frame to its end.
 */
@Injectable()
export class EventStreams implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly slots = new AccountStreamSlots();
  private readonly running = new Set<StreamSink>();

  constructor(
    private readonly feed: LiveEventFeed,
    private readonly webhooks: WebhookStore,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly directory: AccountDirectory,
    private readonly dashboardSessions: DashboardSessions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.feed.start();
  }

  /** Ends every stream (clients reconnect to another gateway) so the server can close. */
  async beforeApplicationShutdown(): Promise<void> {
    for (const sink of this.running) sink.end('shutting_down', 'this server is shutting down; reconnect');
    await this.feed.stop();
  }

  /**
   * Checks what the client asks for and takes one of its account's slots: every refusal (400,
   * 429, 503) happens here, before the response becomes a stream.
   */
  async prepare(
    accountId: string,
    query: { types?: string; since?: string },
    lastEventIdHeader: string | string[] | undefined,
    credential: PresentedCredential,
  ): Promise<StreamOpening> {
    const lastSeen = lastSeenEventId(lastEventIdHeader, query.since);
    const webhook =
      query.types === undefined ? await orUnavailable('database', () => this.webhooks.find(accountId)) : null;
    const types = streamEventTypes(query.types, webhook?.events ?? null);
    const release = this.slots.take(accountId);
    if (release === null) {
      throw new ApiError(
        'rate_limited',
        `This account has ${STREAMS_PER_ACCOUNT} event streams open on this server, the most it may. Close one, then retry.`,
        undefined,
        { 'Retry-After': '5' },
      );
    }
    try {
      const position = await this.feed.position();
      const plan = planResume(lastSeen, position);
      const cursor = await this.feed.follow(accountId, plan.after);
      return { accountId, types, lastSeen, plan, position, cursor, credential, release };
    } catch (error) {
      release();
      this.logger.warn({ err: error }, 'event stream could not be opened');
      throw Object.assign(unavailable('event stream'), { cause: error });
    }
  }

  /** Runs a prepared stream into its sink until the client leaves or the stream is ended. */
  async run(opening: StreamOpening, sink: StreamSink): Promise<void> {
    const { cursor, plan, position } = opening;
    this.running.add(sink);
    const heartbeat = setInterval(() => void this.beat(opening, sink), HEARTBEAT_MS);
    void sink.closed.then(() => cursor.close());
    sink.send({
      kind: 'control',
      type: 'stream.start',
      data: {
        resume: plan.resume,
        since: opening.lastSeen,
        after: plan.after,
        oldestKept: position.oldestKept,
        latest: position.latest,
        types: opening.types,
        heartbeatSeconds: HEARTBEAT_MS / 1000,
        maxUnsentBytes: MAX_UNSENT_BYTES,
      },
    });
    try {
      const outcome = await pumpEvents({
        cursor,
        accountId: opening.accountId,
        types: new Set(opening.types),
        sink,
      });
      if (outcome === 'closed')
        sink.end('feed_failed', 'the event feed ended; reconnect with the last id received');
    } catch (error) {
      if (error instanceof LiveEventsLostError) {
        sink.end(
          'slow_consumer',
          'events were dropped before this stream read them; reconnect with the last id received',
        );
      } else {
        this.logger.warn({ err: error, accountId: opening.accountId }, 'event stream failed');
        sink.end('feed_failed', 'the event feed failed; reconnect with the last id received');
      }
    } finally {
      clearInterval(heartbeat);
      this.running.delete(sink);
      opening.release();
      await cursor.close().catch(() => undefined);
    }
  }

  /**
   * The heartbeat; a key revoked (or a dashboard session ended) or an account suspended since the
   * stream opened ends it.
   */
  private async beat(opening: StreamOpening, sink: StreamSink): Promise<void> {
    sink.heartbeat();
    let allowed: boolean;
    try {
      const { credential } = opening;
      const principal =
        credential.kind === 'key'
          ? await this.authenticator.authenticateHash(credential.hash)
          : await this.dashboardSessions.resolve(credential.tokenHash);
      const access = await this.directory.get(principal.accountId);
      allowed = principal.accountId === opening.accountId && !access.suspended;
    } catch (error) {
      // A store out of reach says nothing about the key: the stream goes on.
      allowed = !(error instanceof ApiError && error.status < 500);
    }
    if (!allowed) sink.end('access_revoked', 'the key was revoked or the account suspended');
  }
}
