import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, requireDistributedSettings } from './load-config';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      metricsPort: null,
      metricsToken: null,
      dataDir: './data',
      databaseUrl: null,
      natsUrl: null,
      redisUrl: null,
      network: 'whatsapp',
      adminToken: null,
      allowPrivateNetworks: false,
      logLevel: 'info',
      bodyLimitBytes: 1048576,
      rateLimitPerMinute: null,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      JUMBE_PORT: '0',
      JUMBE_DATABASE_URL: 'postgres://u@h/db',
      JUMBE_NETWORK: 'sandbox',
      JUMBE_ALLOW_PRIVATE_NETWORKS: 'true',
      JUMBE_RATE_LIMIT_PER_MINUTE: '120',
    });
    expect(config).toMatchObject({
      port: 0,
      databaseUrl: 'postgres://u@h/db',
      network: 'sandbox',
      allowPrivateNetworks: true,
      rateLimitPerMinute: 120,
    });
  });

  it('spreads over 64 shards unless JUMBE_SHARD_COUNT says otherwise, from 1 to 16,384', () => {
    expect(loadConfig({}).shardCount).toBe(64);
    expect(loadConfig({ JUMBE_SHARD_COUNT: '1024' }).shardCount).toBe(1024);
    for (const bad of ['0', '16385', '1.5', 'many'])
      expect(() => loadConfig({ JUMBE_SHARD_COUNT: bad })).toThrow(/JUMBE_SHARD_COUNT/);
  });

  it('waits 30 s before the first webhook retry unless JUMBE_WEBHOOK_RETRY_BASE_MS says otherwise', () => {
    expect(loadConfig({}).webhookRetryBaseMs).toBe(30_000);
    expect(loadConfig({ JUMBE_WEBHOOK_RETRY_BASE_MS: '200' }).webhookRetryBaseMs).toBe(200);
    for (const bad of ['0', '-1', '1.5', 'soon'])
      expect(() => loadConfig({ JUMBE_WEBHOOK_RETRY_BASE_MS: bad })).toThrow(/JUMBE_WEBHOOK_RETRY_BASE_MS/);
  });

  it('lets a stalled process keep its shards for 30 s unless JUMBE_STALL_LIMIT_SECONDS says otherwise', () => {
    expect(loadConfig({}).leaseStallLimitMs).toBe(30_000);
    expect(loadConfig({ JUMBE_STALL_LIMIT_SECONDS: '90' }).leaseStallLimitMs).toBe(90_000);
    for (const bad of ['0', '-1', '1.5', '3601', 'long'])
      expect(() => loadConfig({ JUMBE_STALL_LIMIT_SECONDS: bad })).toThrow(/JUMBE_STALL_LIMIT_SECONDS/);
  });

  it('names a deployment only in the form that fits Redis keys and NATS subjects', () => {
    expect(loadConfig({}).deployment).toBeNull();
    expect(loadConfig({ JUMBE_DEPLOYMENT: 'staging-2' }).deployment).toBe('staging-2');
    expect(() => loadConfig({ JUMBE_DEPLOYMENT: 'Staging.2' })).toThrow(/JUMBE_DEPLOYMENT/);
  });

  it('trusts no proxy unless JUMBE_TRUST_PROXY lists addresses or CIDR ranges', () => {
    expect(loadConfig({}).trustProxy).toEqual([]);
    expect(loadConfig({ JUMBE_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
    ]);
    expect(() => loadConfig({ JUMBE_TRUST_PROXY: 'true' })).toThrow(/JUMBE_TRUST_PROXY/);
    expect(() => loadConfig({ JUMBE_TRUST_PROXY: '10.0.0.0/33' })).toThrow(/JUMBE_TRUST_PROXY/);
  });

  it('reads the metrics token, refusing one shorter than 16 characters', () => {
    expect(loadConfig({ JUMBE_METRICS_TOKEN: 'metrics-token-0123456789' }).metricsToken).toBe(
      'metrics-token-0123456789',
    );
    expect(() => loadConfig({ JUMBE_METRICS_TOKEN: 'short' })).toThrow(
      'JUMBE_METRICS_TOKEN: must be at least 16 characters',
    );
  });

  it('reads settings from a JSON config file, the environment winning', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'jumbe-config-')), 'jumbe.json');
    writeFileSync(file, JSON.stringify({ JUMBE_PORT: 9000, JUMBE_NETWORK: 'sandbox' }));
    expect(loadConfig({ JUMBE_CONFIG_FILE: file })).toMatchObject({ port: 9000, network: 'sandbox' });
    expect(loadConfig({ JUMBE_CONFIG_FILE: file, JUMBE_PORT: '9001' }).port).toBe(9001);
    expect(() => loadConfig({ JUMBE_CONFIG_FILE: join(file, 'missing') })).toThrow(/JUMBE_CONFIG_FILE/);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ JUMBE_REDIS_URL: '' }).redisUrl).toBeNull();
  });

  it('names the variable and the expected form on a bad value', () => {
    expect(() => loadConfig({ JUMBE_PORT: 'eighty' })).toThrow(ConfigError);
    // Every problem is kept on its own, so a process prints one line per problem.
    try {
      loadConfig({ JUMBE_PORT: 'eighty', JUMBE_NETWORK: 'telegram' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        expect.stringMatching(/^JUMBE_PORT: /),
        expect.stringMatching(/^JUMBE_NETWORK: /),
      ]);
    }
    expect(() => loadConfig({ JUMBE_REDIS_URL: 'localhost:6379' })).toThrow(
      /JUMBE_REDIS_URL: must start with redis:\/\//,
    );
    expect(() => loadConfig({ JUMBE_NETWORK: 'telegram' })).toThrow(/JUMBE_NETWORK/);
  });

  it('requires every external dependency for a distributed service', () => {
    expect(() =>
      requireDistributedSettings(loadConfig({ JUMBE_NATS_URL: 'nats://x:4222' }), 'gateway'),
    ).toThrow(/JUMBE_DATABASE_URL, JUMBE_REDIS_URL, JUMBE_SECRET_KEY/);
  });
});
