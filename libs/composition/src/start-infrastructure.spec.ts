import { loadConfig } from '@jumbe/config';
import { eventStreamName } from '@jumbe/contracts';
import { createThrowawayDatabase, TEST_SERVER_URL, type ThrowawayDatabase } from '@jumbe/persistence';
import Redis from 'ioredis';
import { connect, type NatsConnection } from 'nats';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { InfrastructurePart } from './infrastructure';
import { startInfrastructure } from './start-infrastructure';

const NATS_URL = 'nats://127.0.0.1:4222';
const REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * On the real servers of a deployment of its own: a process opens the core and only the parts its
 * composition root asks for (the gateway's, the dispatcher's), so a gateway never creates the
 * event stream and a dispatcher keeps no request-path Redis connection.
 */
describe('startInfrastructure in the distributed mode', () => {
  const deployment = `spec-${randomBytes(4).toString('hex')}`;
  let database: ThrowawayDatabase;
  let dataDir: string;
  let nats: NatsConnection;
  let redis: Redis;

  const start = (service: string, parts: readonly InfrastructurePart[]) =>
    startInfrastructure(
      loadConfig({
        JUMBE_DATABASE_URL: database.url,
        JUMBE_NATS_URL: NATS_URL,
        JUMBE_REDIS_URL: REDIS_URL,
        JUMBE_DEPLOYMENT: deployment,
        JUMBE_SECRET_KEY: 'a-secret-key-for-this-spec-0123456789',
        JUMBE_DATA_DIR: dataDir,
      }),
      'distributed',
      pino({ level: 'silent' }),
      service,
      parts,
    );
  const eventStream = () =>
    nats
      .jetstreamManager()
      .then((manager) => manager.streams.info(eventStreamName(deployment)))
      .then(
        () => 'present',
        (error: Error) => (/stream not found/i.test(error.message) ? 'absent' : Promise.reject(error)),
      );
  const redisConnectionsNamed = async (name: string) =>
    ((await redis.client('LIST')) as string).split('\n').filter((line) => line.includes(` name=${name} `))
      .length;

  beforeAll(async () => {
    [database, dataDir, nats] = await Promise.all([
      createThrowawayDatabase(TEST_SERVER_URL),
      mkdtemp(join(tmpdir(), 'jumbe-infrastructure-spec-')),
      connect({ servers: NATS_URL }),
    ]);
    redis = new Redis(REDIS_URL);
  }, 60_000);
  afterAll(async () => {
    const manager = await nats.jetstreamManager();
    await manager.streams.delete(eventStreamName(deployment)).catch(() => undefined);
    await nats.close();
    redis.disconnect();
    await Promise.all([database?.drop(), rm(dataDir, { recursive: true, force: true })]);
  });

  it("opens only the gateway's parts for a gateway: no event stream, no shard leases", async () => {
    const gateway = await start('spec-gateway', [
      'usageStore',
      'rateLimiter',
      'liveEvents',
      'media',
      'uploads',
    ]);
    try {
      expect(await eventStream()).toBe('absent');
      expect(Object.keys(gateway)).toEqual(
        expect.arrayContaining(['dataSource', 'bus', 'invalidations', 'usageStore', 'liveEvents', 'uploads']),
      );
      expect(Object.keys(gateway)).not.toContain('events');
      expect(Object.keys(gateway)).not.toContain('eventSource');
      expect(Object.keys(gateway)).not.toContain('ownership');
      expect(await redisConnectionsNamed('jumbe-spec-gateway-requests')).toBe(1);
    } finally {
      await gateway.close();
    }
  });

  it('ensures the event stream for a dispatcher, which keeps no request-path Redis connection', async () => {
    const dispatcher = await start('spec-dispatcher', ['eventSource', 'ownership']);
    try {
      expect(await eventStream()).toBe('present');
      expect(await redisConnectionsNamed('jumbe-spec-dispatcher')).toBe(1);
      expect(await redisConnectionsNamed('jumbe-spec-dispatcher-requests')).toBe(0);
      expect(Object.keys(dispatcher)).not.toContain('media');
    } finally {
      await dispatcher.close();
    }
  });
});
