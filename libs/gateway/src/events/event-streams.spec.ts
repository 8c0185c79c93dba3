import { ACCESS_INVALIDATION_TOPIC, ApiError, encodeAccessInvalidation } from '@jumbe/contracts';
import { hashApiKey } from '@jumbe/domain';
import { MemoryLiveEventLog } from '@jumbe/messaging';
import pino from 'pino';
import { AccountDirectory } from '../auth/account-directory';
import { ApiKeyAuthenticator } from '../auth/api-key-authenticator';
import { DashboardSessions } from '../auth/dashboard-sessions';
import type { GatewayPorts } from '../ports/gateway-ports';
import { MemoryGatewayWorld } from '../test-support/memory-gateway-ports';
import { EventStreams, HEARTBEAT_MS } from './event-streams';
import type { StreamEndReason, StreamFrame } from './stream-frame';
import type { StreamSink } from './stream-sink';

/** The client's end of a stream (the HTTP edge): what it was sent and how it was ended. */
class RecordingSink implements StreamSink {
  readonly frames: StreamFrame[] = [];
  ended: StreamEndReason | null = null;
  heartbeats = 0;
  private gone: () => void = () => undefined;
  readonly closed = new Promise<void>((resolve) => (this.gone = resolve));

  send(frame: StreamFrame): void {
    this.frames.push(frame);
  }
  heartbeat(): void {
    this.heartbeats += 1;
  }
  unsent(): number {
    return 0;
  }
  end(reason: StreamEndReason): void {
    this.ended ??= reason;
    this.gone();
  }
}

async function refusal(work: Promise<unknown>): Promise<ApiError> {
  const error = await work.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe('EventStreams', () => {
  let world: MemoryGatewayWorld;
  let ports: GatewayPorts;
  let streams: EventStreams;

  beforeEach(async () => {
    world = new MemoryGatewayWorld();
    ports = world.ports();
    const authenticator = new ApiKeyAuthenticator(ports.apiKeys, ports.invalidations);
    const directory = new AccountDirectory(ports.accounts, ports.invalidations);
    await Promise.all([authenticator.start(), directory.start()]);
    const feed = new MemoryLiveEventLog(100, 1);
    const dashboardSessions = new DashboardSessions(ports.dashboardSessions, ports.rateLimiter);
    streams = new EventStreams(
      feed,
      ports.webhooks,
      authenticator,
      directory,
      dashboardSessions,
      pino({ level: 'silent' }),
    );
  });

  afterEach(() => jest.useRealTimers());

  it("defaults to the types the account's webhook subscribed to", async () => {
    const { accountId, key } = world.addCustomer();
    world.webhooks.set(accountId, {
      accountId,
      url: 'https://example.com/hook',
      urlCiphertext: null,
      enabled: false,
      secretCiphertext: null,
      events: ['message.received', 'session.status'],
      retryAttempts: null,
      updatedAt: new Date(),
    });
    const opening = await streams.prepare(accountId, {}, undefined, { kind: 'key', hash: hashApiKey(key) });
    expect(opening.types).toEqual(['message.received', 'session.status']);
    opening.release();
  });

  it('refuses a sixth stream of one account with 429, and frees a slot when a stream ends', async () => {
    const { accountId, key } = world.addCustomer();
    const openings = [];
    for (let i = 0; i < 5; i += 1)
      openings.push(await streams.prepare(accountId, {}, undefined, { kind: 'key', hash: hashApiKey(key) }));
    const refused = await refusal(
      streams.prepare(accountId, {}, undefined, { kind: 'key', hash: hashApiKey(key) }),
    );
    expect(refused.status).toBe(429);
    expect(refused.code).toBe('rate_limited');
    openings[0]?.release();
    (await streams.prepare(accountId, {}, undefined, { kind: 'key', hash: hashApiKey(key) })).release();
    for (const opening of openings) opening.release();
  });

  it('opens with stream.start, and ends the stream of a key revoked since at its next heartbeat', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    const { accountId, key } = world.addCustomer();
    const opening = await streams.prepare(accountId, {}, '0', { kind: 'key', hash: hashApiKey(key) });
    const sink = new RecordingSink();
    const running = streams.run(opening, sink);
    expect(sink.frames[0]).toEqual({
      kind: 'control',
      type: 'stream.start',
      data: expect.objectContaining({ resume: 'complete', since: 0, types: ['message.received'] }),
    });

    await jest.advanceTimersByTimeAsync(HEARTBEAT_MS);
    expect(sink.heartbeats).toBe(1);
    expect(sink.ended).toBeNull();

    const revoked = world.keys.get(hashApiKey(key));
    world.keys.delete(hashApiKey(key));
    await ports.invalidations.publish(
      ACCESS_INVALIDATION_TOPIC,
      encodeAccessInvalidation({ v: 1, kind: 'key', keyId: revoked?.id ?? '' }),
    );
    await jest.advanceTimersByTimeAsync(HEARTBEAT_MS);
    expect(sink.ended).toBe('access_revoked');
    jest.useRealTimers();
    await running;
  });
});
