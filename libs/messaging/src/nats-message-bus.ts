import { connect, ErrorCode, Events, headers, type Msg, type NatsConnection, type Subscription } from 'nats';
import { BusHandlerError, BusNoResponderError, BusTimeoutError, BusUnavailableError } from './bus-errors';
import { errorMessageOf, fromJsonText, HANDLER_ERROR_HEADER, toJsonText } from './json-wire';
import { fromNatsHeaders, toNatsHeaders } from './nats-headers';
import type {
  BusHandler,
  BusRequestOptions,
  BusServeOptions,
  BusSubscription,
  MessageBus,
} from './message-bus';
import type { MessagingLogger } from './messaging-logger';
import { NatsReplyInbox } from './nats-reply-inbox';
import { assertValidSubject } from './subject-pattern';

/** How long a health check or a new subscription may wait for the server's PONG. */
export const NATS_FLUSH_TIMEOUT_MS = 1_000;

/** How long close() lets a drain take before it closes the connection regardless. */
const DRAIN_TIMEOUT_MS = 5_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * MessageBus over NATS core request/reply. One connection per process; it reconnects forever,
 * and nats.js re-establishes the subscriptions of `serve` after every reconnect.
 *
 * While disconnected, requests fail at once with BusUnavailableError instead of being buffered
 * until the timeout: the gateway then answers 503 immediately rather than 504 late.
 */
export class NatsMessageBus implements MessageBus {
  private connected = true;
  private closing = false;
  private readonly served = new Set<NatsServedSubject>();
  private readonly replies: NatsReplyInbox;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly logger?: MessagingLogger,
  ) {
    this.replies = new NatsReplyInbox(nc);
    void this.followStatus();
    void nc.closed().then((error) => {
      this.connected = false;
      this.replies.close('the NATS connection closed');
      if (error) logger?.('nats connection closed with an error', error);
    });
  }

  /**
   * Connects, waiting for the server if it is not up yet (waitOnFirstConnect), then keeps
   * reconnecting forever at ~500 ms intervals: the service heals when NATS comes back.
   */
  static async connect(url: string, name: string, logger?: MessagingLogger): Promise<NatsMessageBus> {
    const nc = await connect({
      servers: url,
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      waitOnFirstConnect: true,
      // Notice a silently dead server within ~30 s rather than the default ~4 min.
      pingInterval: 10_000,
      maxPingOut: 3,
      // By default nats.js builds two Errors per request (a stack for a possible timeout and one
      // for the caller's context) before knowing whether it will fail: ~5% of a gateway's CPU on
      // the send path (BENCHMARKS.md). A timeout becomes our BusTimeoutError anyway.
      noAsyncTraces: true,
    });
    return new NatsMessageBus(nc, logger);
  }

  /**
   * The underlying connection, for adapters that share it (the JetStream event streams, to come).
   */
  get connection(): NatsConnection {
    return this.nc;
  }

  async request(subject: string, payload: unknown, options: BusRequestOptions): Promise<unknown> {
    assertValidSubject(subject, false);
    const body = encoder.encode(toJsonText(payload));
    this.assertUsable();
    let reply: Msg;
    try {
      reply = await this.replies.request(subject, body, options.timeoutMs, toNatsHeaders(options.headers));
    } catch (error) {
      throw this.translateRequestError(error, subject, options.timeoutMs);
    }
    const text = decoder.decode(reply.data);
    if (reply.headers?.has(HANDLER_ERROR_HEADER)) throw new BusHandlerError(subject, text);
    return fromJsonText(text);
  }

  async serve(subject: string, handler: BusHandler, options: BusServeOptions = {}): Promise<BusSubscription> {
    assertValidSubject(subject, true);
    this.assertUsable();
    const served = new NatsServedSubject(this.nc, subject, handler, options.queue, this.logger);
    try {
      // Once the server answered our PING it has the subscription: a request sent after serve()
      // resolves finds this responder.
      await withTimeout(this.nc.flush(), NATS_FLUSH_TIMEOUT_MS, 'NATS did not confirm the subscription');
    } catch (error) {
      await served.stop();
      throw error instanceof BusUnavailableError
        ? error
        : new BusUnavailableError(errorMessageOf(error), { cause: error });
    }
    this.served.add(served);
    return {
      unsubscribe: async () => {
        this.served.delete(served);
        await served.stop();
      },
    };
  }

  async check(): Promise<void> {
    this.assertUsable();
    try {
      await withTimeout(
        this.nc.flush(),
        NATS_FLUSH_TIMEOUT_MS,
        `NATS did not answer within ${NATS_FLUSH_TIMEOUT_MS} ms`,
      );
    } catch (error) {
      throw error instanceof BusUnavailableError
        ? error
        : new BusUnavailableError(errorMessageOf(error), { cause: error });
    }
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    // Our own drain first: nats.js' drain only waits for callbacks to be called, not for the
    // async handlers they started, whose replies would then find the connection closed.
    await Promise.all([...this.served].map((served) => served.stop()));
    this.served.clear();
    if (this.nc.isClosed()) return;
    try {
      await withTimeout(this.nc.drain(), DRAIN_TIMEOUT_MS, 'NATS drain timed out');
    } catch (error) {
      this.logger?.('nats drain failed; closing the connection', error);
    }
    if (!this.nc.isClosed()) await this.nc.close();
  }

  private assertUsable(): void {
    if (this.closing || this.nc.isClosed() || this.nc.isDraining())
      throw new BusUnavailableError('message bus is closed');
    if (!this.connected) throw new BusUnavailableError('not connected to NATS');
  }

  private translateRequestError(error: unknown, subject: string, timeoutMs: number): Error {
    if (error instanceof BusNoResponderError || error instanceof BusTimeoutError) return error;
    if (error instanceof BusUnavailableError) return error;
    const code = (error as { code?: unknown } | undefined)?.code;
    switch (code) {
      case ErrorCode.NoResponders:
        return new BusNoResponderError(subject);
      case ErrorCode.Timeout:
        return new BusTimeoutError(subject, timeoutMs);
      case ErrorCode.ConnectionClosed:
      case ErrorCode.ConnectionDraining:
      case ErrorCode.Disconnect:
        return new BusUnavailableError(errorMessageOf(error), { cause: error });
      default:
        return error instanceof Error ? error : new Error(String(error));
    }
  }

  private async followStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      switch (status.type) {
        case Events.Disconnect:
          this.connected = false;
          this.logger?.(`nats disconnected from ${String(status.data)}`);
          break;
        case Events.Reconnect:
          this.connected = true;
          this.logger?.(`nats reconnected to ${String(status.data)}`);
          break;
        case Events.LDM:
          this.logger?.('nats server is entering lame duck mode');
          break;
        case Events.Error:
          this.logger?.('nats asynchronous error', status.data);
          break;
        default:
          break;
      }
    }
  }
}

/** One `serve` registration: its NATS subscription and the handler calls it has started. */
class NatsServedSubject {
  private readonly subscription: Subscription;
  private readonly inFlight = new Set<Promise<void>>();
  private stopping: Promise<void> | undefined;

  constructor(
    nc: NatsConnection,
    private readonly subject: string,
    private readonly handler: BusHandler,
    queue: string | undefined,
    private readonly logger?: MessagingLogger,
  ) {
    // A callback, not an async iterator: each request starts its handler at once, so a slow
    // request never holds up the next one.
    this.subscription = nc.subscribe(subject, {
      queue,
      callback: (error, msg) => {
        if (error) {
          logger?.(`nats subscription to ${subject} failed`, error);
          return;
        }
        const answering = this.answer(msg).finally(() => this.inFlight.delete(answering));
        this.inFlight.add(answering);
      },
    });
  }

  /** Takes no more requests, then waits for the ones already taken to be answered. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (!this.subscription.isClosed()) {
        try {
          // drain() waits for the server to confirm, which never comes while disconnected.
          await withTimeout(
            this.subscription.drain(),
            NATS_FLUSH_TIMEOUT_MS,
            'NATS did not confirm the unsubscribe',
          );
        } catch (error) {
          // Unconfirmed or already closed with the connection: stop locally, which is what counts.
          if (!this.subscription.isClosed()) this.subscription.unsubscribe();
          this.logger?.(`nats unsubscribe from ${this.subject} was not confirmed`, error);
        }
      }
      await Promise.all([...this.inFlight]);
    })();
    return this.stopping;
  }

  private async answer(msg: Msg): Promise<void> {
    let body: string;
    let failed = false;
    try {
      const payload = fromJsonText(decoder.decode(msg.data));
      body = toJsonText(await this.handler(payload, { headers: fromNatsHeaders(msg.headers) }));
    } catch (error) {
      // Unparseable requests and unserialisable replies are failures of this side too.
      body = errorMessageOf(error);
      failed = true;
    }
    if (!msg.reply) return; // published, not requested: nobody waits for an answer
    try {
      if (failed) {
        const marked = headers();
        marked.set(HANDLER_ERROR_HEADER, '1');
        msg.respond(encoder.encode(body), { headers: marked });
      } else {
        msg.respond(encoder.encode(body));
      }
    } catch (error) {
      // The connection closed under us; the requester will time out.
      this.logger?.(`nats reply on ${this.subject} could not be sent`, error);
    }
  }
}

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BusUnavailableError(message)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
