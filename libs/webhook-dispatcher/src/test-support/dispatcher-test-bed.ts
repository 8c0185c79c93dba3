import {
  ACCESS_INVALIDATION_TOPIC,
  encodeAccessInvalidation,
  inboundEventId,
  inboundEventSubject,
} from '@jumbe/contracts';
import { MemoryInvalidationBus } from '@jumbe/coordination';
import { generateWebhookSecret, WebhookVault } from '@jumbe/domain';
import type { OutgoingEvent } from '@jumbe/messaging';
import {
  AccountRepository,
  InboundEventRepository,
  openMigratedTestDatabase,
  PlanRepository,
  WebhookDeliveryRepository,
  WebhookRepository,
  type MigratedTestDatabase,
} from '@jumbe/persistence';
import { RecordingReceiver } from '@jumbe/testing';
import { randomUUID } from 'node:crypto';
import { WebhookDirectory } from '../webhook-directory';

/**
 * The real parts the dispatcher specs share: a migrated database with its event log, deliveries
 * and webhooks tables, the webhook directory over them (secrets sealed by `vault`), and a real
 * HTTP receiver. Accounts and webhooks are saved as the gateway saves them.
 */
export class DispatcherTestBed {
  readonly events: InboundEventRepository;
  readonly deliveries: WebhookDeliveryRepository;

  private constructor(
    readonly db: MigratedTestDatabase,
    readonly receiver: RecordingReceiver,
    readonly vault: WebhookVault,
    readonly invalidations: MemoryInvalidationBus,
    readonly webhooks: WebhookRepository,
    readonly directory: WebhookDirectory,
  ) {
    this.events = new InboundEventRepository(db.dataSource);
    this.deliveries = new WebhookDeliveryRepository(db.dataSource);
  }

  /** `vaultKey`: the webhook vault's secret key, one per spec. */
  static async open(vaultKey: string): Promise<DispatcherTestBed> {
    const db = await openMigratedTestDatabase();
    const receiver = await RecordingReceiver.start();
    const vault = new WebhookVault(vaultKey);
    const invalidations = new MemoryInvalidationBus();
    const webhooks = new WebhookRepository(db.dataSource);
    const directory = new WebhookDirectory(webhooks, vault, invalidations);
    await directory.start();
    return new DispatcherTestBed(db, receiver, vault, invalidations, webhooks, directory);
  }

  async close(): Promise<void> {
    await this.receiver.close();
    await this.db.close();
  }

  /** A new account, on a plan of its own. */
  async createAccount(name: string): Promise<string> {
    const plan = await new PlanRepository(this.db.dataSource).create({
      name: `plan-${randomUUID()}`,
      monthlyApiHits: 1_000,
      maxSessions: 5,
    });
    return (await new AccountRepository(this.db.dataSource).create({ name, planId: plan.id })).id;
  }

  /**
   * Saves the account's webhook (for message.received) as the gateway does: secret sealed, then
   * the invalidation published unless `announce` is false. Returns the signing secret.
   */
  async saveWebhook(
    accountId: string,
    url: string,
    {
      enabled = true,
      retryAttempts = null,
      announce = true,
    }: { enabled?: boolean; retryAttempts?: number | null; announce?: boolean } = {},
  ): Promise<string> {
    const secret = generateWebhookSecret();
    await this.webhooks.save({
      accountId,
      ...this.vault.storableUrl(url),
      enabled,
      secretCiphertext: this.vault.sealSigningSecret(secret),
      events: ['message.received'],
      retryAttempts,
    });
    if (announce) {
      await this.invalidations.publish(
        ACCESS_INVALIDATION_TOPIC,
        encodeAccessInvalidation({ v: 1, kind: 'webhook', accountId }),
      );
    }
    return secret;
  }
}

/** A message.received event of the account's session, on `shard` (bodies abridged: a text message). */
export function messageReceivedEvent(
  shard: number,
  accountId: string,
  messageId: string,
  {
    sessionId = 'main',
    timestamp = new Date(),
    text = `message ${messageId}`,
  }: { sessionId?: string; timestamp?: Date; text?: string } = {},
): OutgoingEvent {
  return {
    eventId: inboundEventId(accountId, sessionId, messageId),
    subject: inboundEventSubject(shard, accountId, sessionId),
    shard,
    payload: {
      event: 'message.received',
      timestamp: timestamp.toISOString(),
      customerId: accountId,
      sessionId,
      message: { id: messageId, from: '254712345678', text },
    },
  };
}

/** The message ids of received webhook requests, in order. */
export const messageIds = (requests: { json: any }[]): string[] =>
  requests.map((request) => request.json.message.id);

/** The message id of an event made by messageReceivedEvent. */
export const idOf = (event: OutgoingEvent): string =>
  (event.payload as { message: { id: string } }).message.id;
