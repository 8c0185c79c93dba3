import type { DeliverableEvent, EventSource } from '@jumbe/messaging';
import { shardOf } from '@jumbe/domain';
import pino from 'pino';
import { DispatcherShardOwner } from './dispatcher-shard-owner';
import type { EventDispatcher } from './event-dispatcher';
import type { StreamDeliverable } from './stream-deliverable';

/** A shard's stream as the owner consumes it: hands over the given events and records acks. */
function streamOf(payloads: unknown[]) {
  const acked: string[] = [];
  const source: EventSource = {
    consume: async (_shard, handler) => {
      payloads.forEach((payload, i) => {
        const event: DeliverableEvent = {
          eventId: `e${i}`,
          subject: 'jumbe.v1.events.1.a.s',
          payload,
          ack: async () => void acked.push(`e${i}`),
          working: async () => undefined,
        };
        handler(event);
      });
      return { stop: async () => undefined };
    },
  };
  return { source, acked };
}

const valid = {
  event: 'webhook.test',
  timestamp: '2030-01-01T00:00:00.000Z',
  customerId: 'acc',
  sessionId: 'default',
  data: { message: 'hi' },
};

describe('DispatcherShardOwner', () => {
  it('hands schema-valid events to the dispatcher and sets aside (acks) events of unknown shape', async () => {
    const { source, acked } = streamOf([
      { event: 'message.received', nonsense: true },
      valid,
      'not even an object',
    ]);
    const accepted: StreamDeliverable[] = [];
    const dispatcher = { accept: (event: StreamDeliverable) => void accepted.push(event) };
    const owner = new DispatcherShardOwner(
      source,
      dispatcher as unknown as EventDispatcher,
      pino({ level: 'silent' }),
    );

    await owner.adopt(1);
    await new Promise((resolve) => setImmediate(resolve));

    expect(accepted.map((event) => event.eventId)).toEqual(['e1']);
    expect(accepted[0]?.payload.customerId).toBe('acc');
    expect(acked.sort()).toEqual(['e0', 'e2']);
  });

  it('consumes every owned shard afresh when the stream connection is back, after dropping what it queued', async () => {
    const calls: string[] = [];
    let resume: () => void = () => undefined;
    const source: EventSource = {
      consume: async (shard) => {
        calls.push(`consume ${shard}`);
        return { stop: async () => void calls.push(`stop ${shard}`) };
      },
      resumed: (listener) => {
        resume = listener;
        return () => undefined;
      },
    };
    const dispatcher = {
      accept: () => undefined,
      forgetWhere: (belongs: (payload: { customerId: string; sessionId: string }) => boolean) =>
        void calls.push(`forget ${belongs({ customerId: 'acc', sessionId: 'default' })}`),
      finishInHand: async () => void calls.push('finish in hand'),
    };
    const owner = new DispatcherShardOwner(
      source,
      dispatcher as unknown as EventDispatcher,
      pino({ level: 'silent' }),
    );
    const shard = shardOf('acc', 'default');
    const other = (shard + 1) % 64;
    await owner.adopt(shard);
    await owner.adopt(other);
    await owner.drop(other);
    calls.length = 0;

    resume();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The dropped shard stays its next owner's; the owned one is stopped, its queue forgotten, then consumed again.
    expect(calls).toEqual([`stop ${shard}`, 'forget true', 'finish in hand', `consume ${shard}`]);
  });
});
