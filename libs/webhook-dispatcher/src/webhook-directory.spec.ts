import { ACCESS_INVALIDATION_TOPIC, encodeAccessInvalidation } from '@jumbe/contracts';
import { MemoryInvalidationBus } from '@jumbe/coordination';
import { type StoredWebhook, WebhookVault } from '@jumbe/domain';
import { WebhookDirectory } from './webhook-directory';

describe('WebhookDirectory.targetFor: which events reach a webhook', () => {
  const vault = new WebhookVault('directory-test-key-0123456789');
  const stored = new Map<string, StoredWebhook>();
  const invalidations = new MemoryInvalidationBus();
  const directory = new WebhookDirectory(
    { find: async (accountId) => stored.get(accountId) ?? null },
    vault,
    invalidations,
  );
  beforeAll(() => directory.start());

  async function save(accountId: string, events: string[], enabled = true): Promise<void> {
    stored.set(accountId, {
      accountId,
      ...vault.storableUrl(`https://hooks.example.test/${accountId}`),
      enabled,
      secretCiphertext: vault.sealSigningSecret('whsec_test'),
      events,
      retryAttempts: null,
      updatedAt: new Date(),
    });
    await invalidations.publish(
      ACCESS_INVALIDATION_TOPIC,
      encodeAccessInvalidation({ v: 1, kind: 'webhook', accountId }),
    );
  }

  it('sends by default only what the spec defines: message.received and webhook.test', async () => {
    await save('a', ['message.received']);
    expect(await directory.targetFor('a', 'message.received')).toMatchObject({ secret: 'whsec_test' });
    expect(await directory.targetFor('a', 'webhook.test')).not.toBeNull();
    expect(await directory.targetFor('a', 'session.status')).toBeNull();
  });

  it('sends a subscribed type, and webhook.test even to a webhook that subscribed to nothing', async () => {
    await save('b', ['session.status']);
    expect(await directory.targetFor('b', 'session.status')).not.toBeNull();
    expect(await directory.targetFor('b', 'message.received')).toBeNull();
    await save('b', []);
    expect(await directory.targetFor('b', 'session.status')).toBeNull();
    expect(await directory.targetFor('b', 'webhook.test')).not.toBeNull();
  });

  it('sends nothing to a disabled or missing webhook', async () => {
    await save('c', ['message.received'], false);
    expect(await directory.targetFor('c', 'message.received')).toBeNull();
    expect(await directory.targetFor('nobody', 'message.received')).toBeNull();
  });
});

describe('WebhookDirectory.get: reads of the webhooks table', () => {
  const vault = new WebhookVault('directory-test-key-0123456789');
  const webhookOf = (accountId: string, url: string): StoredWebhook => ({
    accountId,
    ...vault.storableUrl(url),
    enabled: true,
    secretCiphertext: vault.sealSigningSecret('whsec_test'),
    events: ['message.received'],
    retryAttempts: null,
    updatedAt: new Date(),
  });

  /** A table whose reads are counted and answered only when `answer()` is called. */
  function slowTable(initial: string) {
    let url = initial;
    const waiting: (() => void)[] = [];
    let reads = 0;
    return {
      lookup: {
        find: async (accountId: string) => {
          reads += 1;
          const read = webhookOf(accountId, url);
          await new Promise<void>((resolve) => waiting.push(resolve));
          return read;
        },
      },
      save: (next: string) => void (url = next),
      answer: () => waiting.splice(0).forEach((resolve) => resolve()),
      reads: () => reads,
    };
  }

  afterEach(() => jest.useRealTimers());

  it('shares one read among concurrent deliveries of an account', async () => {
    const table = slowTable('https://hooks.example.test/one');
    const directory = new WebhookDirectory(table.lookup, vault, new MemoryInvalidationBus());
    const targets = Array.from({ length: 20 }, () => directory.get('acct'));
    await Promise.resolve();
    table.answer();
    expect(new Set((await Promise.all(targets)).map((target) => target?.url))).toEqual(
      new Set(['https://hooks.example.test/one']),
    );
    expect(table.reads()).toBe(1);
  });

  it('past its 10 s, serves the webhook it has while reading it again, then the new one', async () => {
    jest.useFakeTimers({ now: new Date('2030-01-01T12:00:00Z'), doNotFake: ['setImmediate', 'nextTick'] });
    const table = slowTable('https://hooks.example.test/old');
    const directory = new WebhookDirectory(table.lookup, vault, new MemoryInvalidationBus());
    const first = directory.get('acct');
    await Promise.resolve();
    table.answer();
    await first;

    table.save('https://hooks.example.test/new');
    jest.setSystemTime(new Date('2030-01-01T12:00:11Z'));
    // No wait for the read: the delivery goes out with what was read 11 s ago.
    expect((await directory.get('acct'))?.url).toBe('https://hooks.example.test/old');
    expect(table.reads()).toBe(2);
    table.answer();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await directory.get('acct'))?.url).toBe('https://hooks.example.test/new');
    expect(table.reads()).toBe(2);
  });

  it('after a save is announced, waits for a new read and never keeps what a read begun before it returned', async () => {
    const table = slowTable('https://hooks.example.test/old');
    const invalidations = new MemoryInvalidationBus();
    const directory = new WebhookDirectory(table.lookup, vault, invalidations);
    await directory.start();
    const before = directory.get('acct');
    await Promise.resolve();
    table.save('https://hooks.example.test/new');
    await invalidations.publish(
      ACCESS_INVALIDATION_TOPIC,
      encodeAccessInvalidation({ v: 1, kind: 'webhook', accountId: 'acct' }),
    );
    const after = directory.get('acct');
    await Promise.resolve();
    table.answer();
    expect((await before)?.url).toBe('https://hooks.example.test/old');
    expect((await after)?.url).toBe('https://hooks.example.test/new');
    expect((await directory.get('acct'))?.url).toBe('https://hooks.example.test/new');
    expect(table.reads()).toBe(2);
  });
});
