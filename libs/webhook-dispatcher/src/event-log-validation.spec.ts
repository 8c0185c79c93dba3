import { inboundEventId, inboundEventSubject, inboundMessageEvent } from '@jumbe/contracts';
import { DurableEventLog, type OutgoingEvent } from '@jumbe/messaging';
import { eventually } from '@jumbe/testing';
import pino from 'pino';
import { DispatcherShardOwner } from './dispatcher-shard-owner';
import { EventDispatcher } from './event-dispatcher';
import { DispatcherTestBed } from './test-support/dispatcher-test-bed';
import { WebhookPoster } from './webhook-poster';

/**
 * The all-in-one event log's rows are JSON in PostgreSQL (`inbound_events`), written by one
 * process and read by whichever owns the shard next, maybe of another version. The shard owner
 * validates each row against the webhook event schemas when it reads it: a row of no known shape
 * is logged and set aside, and the session's next event is still delivered.
 */
describe('the event log, validated when read', () => {
  let bed: DispatcherTestBed;
  const errors: { msg: string; eventId?: string }[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line)) });

  beforeAll(async () => {
    bed = await DispatcherTestBed.open('event-log-validation-key-0123456789');
  });
  afterAll(() => bed.close());

  /** A stored event of the account's session `main` on `shard`, with `payload` as its body. */
  const stored = (shard: number, accountId: string, messageId: string, payload: unknown): OutgoingEvent => ({
    eventId: inboundEventId(accountId, 'main', messageId),
    subject: inboundEventSubject(shard, accountId, 'main'),
    shard,
    payload,
  });

  it('sets aside a malformed row with an error line and delivers the next event of the session', async () => {
    const shard = 901;
    const accountId = await bed.createAccount('Event log validation');
    const path = `/hooks/${accountId}`;
    await bed.saveWebhook(accountId, `${bed.receiver.url}${path}`);
    const good = inboundMessageEvent(
      accountId,
      'main',
      {
        id: 'GOOD',
        chat: '254711111111@s.whatsapp.net',
        participant: null,
        senderPhoneJid: null,
        fromMe: false,
        pushName: 'Amina',
        type: 'conversation',
        text: 'after the bad row',
        interaction: null,
        media: null,
        timestamp: new Date('2030-01-01T00:00:00Z'),
      },
      new Date('2030-01-01T00:00:01Z'),
    );
    // An older producer's body: the event's name, but not its shape (no sender, no envelope).
    await bed.events.append(stored(shard, accountId, 'BAD', { event: 'message.received', text: 'hi' }));
    await bed.events.append(stored(shard, accountId, 'GOOD', good));

    const dispatcher = new EventDispatcher(bed.directory, new WebhookPoster(true), bed.deliveries, logger, {
      retryDelayMs: 20,
      maxRecordTries: 3,
      maxUnrecordedPerSession: 4,
      concurrentRecords: 1,
    });
    const owner = new DispatcherShardOwner(new DurableEventLog(bed.events), dispatcher, logger);
    await owner.adopt(shard);
    try {
      const [request] = await bed.receiver.waitFor(path, 1, 10_000);
      expect(request?.json).toMatchObject({ event: 'message.received', message: { id: 'GOOD' } });
      await eventually('the log to be empty', async () => (await bed.events.pending(shard)).length === 0);
      expect(errors).toContainEqual(
        expect.objectContaining({ eventId: inboundEventId(accountId, 'main', 'BAD') }),
      );
      expect(await bed.deliveries.latest(accountId, 10)).toHaveLength(1);
    } finally {
      await owner.drop(shard);
      dispatcher.stop();
    }
  });
});
