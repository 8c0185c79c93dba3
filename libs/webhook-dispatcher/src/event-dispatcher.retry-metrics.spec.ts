import { deliveryIdForEvent } from '@jumbe/domain';
import { DurableEventLog, type EventConsumption, type OutgoingEvent } from '@jumbe/messaging';
import type { InboundEventRepository } from '@jumbe/persistence';
import { telemetry } from '@jumbe/telemetry';
import { eventually, failsThenSucceeds, type RecordingReceiver } from '@jumbe/testing';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { EventDispatcher } from './event-dispatcher';
import type { StreamDeliverable } from './stream-deliverable';
import { DispatcherTestBed, messageReceivedEvent } from './test-support/dispatcher-test-bed';
import { WebhookPoster } from './webhook-poster';

async function counter(name: string): Promise<number> {
  const text = await telemetry().registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

/**
 * The retry metrics and the give-up log line, with the dispatcher's real parts (PostgreSQL, the
 * all-in-one event log, a real HTTP receiver that keeps failing).
 */
describe('EventDispatcher retry observability', () => {
  let bed: DispatcherTestBed;
  let receiver: RecordingReceiver;
  let events: InboundEventRepository;
  let dispatcher: EventDispatcher;
  let consumption: EventConsumption;
  /** The all-in-one's event log: published to and consumed from in this process. */
  let log: DurableEventLog;
  const logged: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  const shard = 950;

  beforeAll(async () => {
    bed = await DispatcherTestBed.open('dispatcher-metrics-test-secret-key-0123456789');
    ({ receiver, events } = bed);
    dispatcher = new EventDispatcher(bed.directory, new WebhookPoster(true), bed.deliveries, logger, {
      retryDelayMs: 20,
      retryBaseMs: 50,
    });
    log = new DurableEventLog(events);
    consumption = await log.consume(shard, (event) => dispatcher.accept(event as StreamDeliverable));
  });
  afterAll(async () => {
    await consumption.stop();
    dispatcher.stop();
    await bed.close();
  });

  async function account(retryAttempts: number | null): Promise<{ accountId: string; path: string }> {
    const accountId = await bed.createAccount('Metrics test');
    const path = `/hooks/${accountId}`;
    await bed.saveWebhook(accountId, `${receiver.url}${path}`, { retryAttempts });
    return { accountId, path };
  }

  function inboundEvent(accountId: string): OutgoingEvent {
    const messageId = `METRICS-${randomBytes(4).toString('hex')}`;
    return messageReceivedEvent(shard, accountId, messageId, { text: `secret words ${messageId}` });
  }

  const drained = () =>
    eventually('event log drained', async () => (await events.pending(shard)).length === 0, 10_000);

  it('counts each retry scheduled and the event given up after its last attempt, and logs the give-up without the payload', async () => {
    const retries = await counter('jumbe_webhook_retries_scheduled_total');
    const givenUp = await counter('jumbe_webhook_events_given_up_total');
    const { accountId, path } = await account(2);
    receiver.on(path, failsThenSucceeds(10, 500));
    const event = inboundEvent(accountId);
    await log.publish(event);

    await receiver.waitFor(path, 3, 10_000);
    await drained();
    expect((await counter('jumbe_webhook_retries_scheduled_total')) - retries).toBe(2);
    expect((await counter('jumbe_webhook_events_given_up_total')) - givenUp).toBe(1);
    const line = logged.find((entry) => entry['accountId'] === accountId);
    expect(line).toMatchObject({
      level: 40,
      deliveryId: deliveryIdForEvent(event.eventId),
      attempts: 3,
      msg: 'webhook event given up: its last attempt failed',
    });
    expect(JSON.stringify(line)).not.toContain('secret words');
  });

  it('counts nothing for an account without retries, nor for an opted-in delivery that succeeds', async () => {
    const retries = await counter('jumbe_webhook_retries_scheduled_total');
    const givenUp = await counter('jumbe_webhook_events_given_up_total');
    const plain = await account(null);
    receiver.on(plain.path, failsThenSucceeds(10, 500));
    const optedIn = await account(3);
    await log.publish(inboundEvent(plain.accountId));
    await log.publish(inboundEvent(optedIn.accountId));

    await receiver.waitFor(plain.path, 1, 5_000);
    await receiver.waitFor(optedIn.path, 1, 5_000);
    await drained();
    expect((await counter('jumbe_webhook_retries_scheduled_total')) - retries).toBe(0);
    expect((await counter('jumbe_webhook_events_given_up_total')) - givenUp).toBe(0);
    expect(logged.filter((entry) => entry['accountId'] === plain.accountId)).toEqual([]);
  });
});
