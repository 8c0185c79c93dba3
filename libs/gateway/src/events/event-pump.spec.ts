import { inboundEventId, inboundEventSubject } from '@jumbe/contracts';
import { deliveryIdForEvent } from '@jumbe/domain';
import { LiveEventsLostError, MemoryLiveEventLog } from '@jumbe/messaging';
import { pumpEvents } from './event-pump';
import type { EventFrame, StreamEndReason, StreamFrame } from './stream-frame';
import type { StreamSink } from './stream-sink';

/** A client that takes what it is sent, as fast or as slowly as told (`unsentBytes`). */
class RecordingSink implements StreamSink {
  readonly frames: StreamFrame[] = [];
  ended: StreamEndReason | null = null;
  unsentBytes = 0;
  readonly closed = new Promise<void>(() => undefined);

  send(frame: StreamFrame): void {
    this.frames.push(frame);
  }
  heartbeats = 0;
  heartbeat(): void {
    this.heartbeats += 1;
  }
  unsent(): number {
    return this.unsentBytes;
  }
  end(reason: StreamEndReason): void {
    this.ended = reason;
  }
  events(): EventFrame[] {
    return this.frames.filter((frame): frame is EventFrame => frame.kind === 'event');
  }
}

function received(accountId: string, messageId: string, sessionId = 'main') {
  return {
    eventId: inboundEventId(accountId, sessionId, messageId),
    subject: inboundEventSubject(3, accountId, sessionId),
    payload: {
      event: 'message.received',
      timestamp: new Date().toISOString(),
      customerId: accountId,
      sessionId,
      message: {
        id: messageId,
        from: '254712345678',
        replyTo: '254712345678@s.whatsapp.net',
        phoneNumber: '254712345678',
        chat: '254712345678@s.whatsapp.net',
        participant: null,
        rawFrom: '254712345678@s.whatsapp.net',
        rawChat: '254712345678@s.whatsapp.net',
        pushName: null,
        fromMe: false,
        type: 'text',
        text: `text of ${messageId}`,
        interaction: null,
        media: null,
        messageTimestamp: '1700000000',
      },
    },
  };
}

function status(accountId: string, messageId: string) {
  return {
    eventId: `${accountId}:main:message.status:${messageId}:delivered`,
    subject: inboundEventSubject(3, accountId, 'main'),
    payload: {
      event: 'message.status',
      timestamp: new Date().toISOString(),
      customerId: accountId,
      sessionId: 'main',
      message: { id: messageId, to: '254712345678', status: 'delivered', at: new Date().toISOString() },
    },
  };
}

/** Runs a pump until the events the log holds now are through, then closes its cursor. */
async function pumpAll(
  log: MemoryLiveEventLog,
  accountId: string,
  types: string[],
  sink: RecordingSink,
  after = 0,
  maxUnsentBytes?: number,
) {
  const cursor = await log.follow(accountId, after);
  const pumping = pumpEvents({ cursor, accountId, types: new Set(types), sink, maxUnsentBytes });
  await new Promise((resolve) => setImmediate(resolve));
  await cursor.close();
  return pumping;
}

describe('pumpEvents', () => {
  it("sends an account only its own events, never another account's", async () => {
    const log = new MemoryLiveEventLog(100, 1);
    log.append(received('acct-a', 'a1'));
    log.append(received('acct-b', 'b1'));
    log.append(received('acct-a', 'a2'));
    const a = new RecordingSink();
    const b = new RecordingSink();
    await pumpAll(log, 'acct-a', ['message.received'], a);
    await pumpAll(log, 'acct-b', ['message.received'], b);
    expect(a.events().map((frame) => frame.envelope.customerId)).toEqual(['acct-a', 'acct-a']);
    expect(b.events().map((frame) => frame.seq)).toEqual([2]);
  });

  it("checks the payload's own account, whatever the subject says", async () => {
    const log = new MemoryLiveEventLog(100, 1);
    const forged = received('acct-b', 'b1');
    log.append({ ...forged, subject: inboundEventSubject(3, 'acct-a', 'main') });
    const a = new RecordingSink();
    await pumpAll(log, 'acct-a', ['message.received'], a);
    expect(a.events()).toEqual([]);
  });

  it('sends only the types asked for, in the envelope the webhook gets', async () => {
    const log = new MemoryLiveEventLog(100, 1);
    const event = received('acct-a', 'a1');
    log.append(event);
    log.append(status('acct-a', 'a1'));
    const onlyReceived = new RecordingSink();
    await pumpAll(log, 'acct-a', ['message.received'], onlyReceived);
    expect(onlyReceived.events()).toEqual([
      {
        kind: 'event',
        seq: 1,
        type: 'message.received',
        envelope: { ...event.payload, deliveryId: deliveryIdForEvent(event.eventId) },
      },
    ]);
    const both = new RecordingSink();
    await pumpAll(log, 'acct-a', ['message.received', 'message.status'], both);
    expect(both.events().map((frame) => frame.type)).toEqual(['message.received', 'message.status']);
  });

  it('skips what is not one of the event schemas', async () => {
    const log = new MemoryLiveEventLog(100, 1);
    log.append({
      eventId: 'x',
      subject: inboundEventSubject(3, 'acct-a', 'main'),
      payload: { event: 'message.received' },
    });
    log.append(received('acct-a', 'a1'));
    const sink = new RecordingSink();
    await pumpAll(log, 'acct-a', ['message.received'], sink);
    expect(sink.events().map((frame) => frame.seq)).toEqual([2]);
  });

  it('resumes after the id given: only what followed it', async () => {
    const log = new MemoryLiveEventLog(100, 1);
    for (const id of ['a1', 'a2', 'a3']) log.append(received('acct-a', id));
    const sink = new RecordingSink();
    await pumpAll(log, 'acct-a', ['message.received'], sink, 2);
    expect(sink.events().map((frame) => frame.seq)).toEqual([3]);
  });

  it('drops a client that leaves too much untaken, instead of buffering for it', async () => {
    const log = new MemoryLiveEventLog(100, 1);
    for (const id of ['a1', 'a2', 'a3']) log.append(received('acct-a', id));
    const slow = new RecordingSink();
    slow.unsentBytes = 2_000;
    const outcome = await pumpAll(log, 'acct-a', ['message.received'], slow, 0, 1_000);
    expect(outcome).toBe('slow_consumer');
    expect(slow.ended).toBe('slow_consumer');
    expect(slow.events()).toHaveLength(1);
  });

  it('fails a reader the log has overtaken, so it is not silently missing events', async () => {
    const log = new MemoryLiveEventLog(2, 1);
    const cursor = await log.follow('acct-a', 0);
    for (const id of ['a1', 'a2', 'a3', 'a4']) log.append(received('acct-a', id));
    const sink = new RecordingSink();
    await expect(
      pumpEvents({ cursor, accountId: 'acct-a', types: new Set(['message.received']), sink }),
    ).rejects.toBeInstanceOf(LiveEventsLostError);
  });
});
