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
