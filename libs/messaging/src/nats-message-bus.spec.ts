import { randomUUID } from 'node:crypto';
import { delay, eventually, failureOf, TcpProxy } from '@jumbe/testing';
import { BusNoResponderError, BusUnavailableError } from './bus-errors';
import { NatsMessageBus } from './nats-message-bus';

const NATS_URL = new URL(process.env['JUMBE_TEST_NATS_URL'] ?? 'nats://127.0.0.1:4222');

describe('NatsMessageBus across connection loss (through a TCP proxy to the real server)', () => {
  let proxy: TcpProxy;
  const buses: NatsMessageBus[] = [];
  const connect = async (url: string, name: string, logger?: (message: string) => void) => {
    const bus = await NatsMessageBus.connect(url, `jumbe-test-${name}`, logger);
    buses.push(bus);
    return bus;
  };
  const proxiedUrl = () => proxy.rewrite(NATS_URL.href);

  beforeEach(async () => {
    proxy = await TcpProxy.inFrontOf(NATS_URL.href);
  });
  afterEach(async () => {
    await proxy.close();
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });

  it('keeps serving after the server connection was lost and re-established', async () => {
    const log: string[] = [];
    const server = await connect(proxiedUrl(), 'flaky-server', (message) => log.push(message));
    const requester = await connect(NATS_URL.href, 'steady-requester');
    const subject = `test.${randomUUID()}`;
    await server.serve(subject, async (payload) => ({ pong: payload }), { queue: 'workers' });
    expect(await requester.request(subject, 1, { timeoutMs: 1_000 })).toEqual({ pong: 1 });

    await proxy.cut();
    await eventually('the server to lose its subscription', async () => {
      const { error } = await failureOf(() => requester.request(subject, 2, { timeoutMs: 200 }));
      return error instanceof BusNoResponderError;
    });

    await proxy.restore();
    const back = Date.now();
    await eventually(
      'serving again',
      async () => (await requester.request(subject, 3, { timeoutMs: 200 })) !== undefined,
    );
    expect(Date.now() - back).toBeLessThan(3_000);
    expect(log.some((line) => line.includes('disconnected'))).toBe(true);
    expect(log.some((line) => line.includes('reconnected'))).toBe(true);
  });

  it('fails requests and health checks at once while disconnected, and recovers by itself', async () => {
    const requester = await connect(proxiedUrl(), 'flaky-requester');
    const server = await connect(NATS_URL.href, 'steady-server');
    const subject = `test.${randomUUID()}`;
    await server.serve(subject, async () => 'ok');
    expect(await requester.request(subject, {}, { timeoutMs: 1_000 })).toBe('ok');

    await proxy.cut();
    await eventually(
      'the disconnection to be noticed',
      async () => {
        const { error } = await failureOf(() => requester.check());
        return error instanceof BusUnavailableError;
      },
      2_000,
    );
    const request = await failureOf(() => requester.request(subject, {}, { timeoutMs: 5_000 }));
    expect(request.error).toBeInstanceOf(BusUnavailableError);
    expect(request.ms).toBeLessThan(100);
    const check = await failureOf(() => requester.check());
    expect(check.error).toBeInstanceOf(BusUnavailableError);
    expect(check.ms).toBeLessThan(100);

    await proxy.restore();
    await eventually(
      'requests to work again',
      async () => (await requester.request(subject, {}, { timeoutMs: 200 })) === 'ok',
    );
    await expect(requester.check()).resolves.toBeUndefined();
  });

  it('fails its health check within ~1 s when the server stops answering', async () => {
    const bus = await connect(proxiedUrl(), 'hung');
    proxy.blackhole();
    const { error, ms } = await failureOf(() => bus.check());
    expect(error).toBeInstanceOf(BusUnavailableError);
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(1_500);
  });

  it('waits for a server that is not up yet when connecting', async () => {
    await proxy.cut();
    const connecting = connect(proxiedUrl(), 'early-bird');
    let connected = false;
    void connecting.then(() => (connected = true));
    await delay(700);
    expect(connected).toBe(false);
    await proxy.restore();
    const bus = await connecting;
    await expect(bus.check()).resolves.toBeUndefined();
  });
});
