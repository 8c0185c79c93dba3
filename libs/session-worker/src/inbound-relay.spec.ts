import { inboundEventId } from '@jumbe/contracts';
import { type InboundNetworkMessage, shardOf } from '@jumbe/domain';
import { InboundRelay } from './inbound-relay';
import { DeduplicatingPublisher } from './test-support/deduplicating-publisher';

/**
 * The inbound path's promise (README: delivered once): the driver hands a received message up
 * again after a crash, a hand-over or a failed acknowledgement, and the stream stores it once
 * because the relay names each event by its network message id. Published here through a
 * publisher that de-duplicates as JetStream does, so what a webhook would receive is `stored`.
 */
describe('InboundRelay: one stored event per network message, however often it is relayed', () => {
  const ref = { accountId: '11111111-1111-4111-8111-111111111111', sessionId: 'shop' };

  const message = (id: string, overrides: Partial<InboundNetworkMessage> = {}): InboundNetworkMessage => ({
    id,
    chat: '254711111111@s.whatsapp.net',
    participant: null,
    senderPhoneJid: null,
    fromMe: false,
    pushName: 'Amina',
    type: 'conversation',
    text: `text of ${id}`,
    interaction: null,
    media: null,
    timestamp: new Date('2026-01-01T10:00:00Z'),
    ...overrides,
  });

  it('stores a redelivered message once, under its network message id', async () => {
    const stream = new DeduplicatingPublisher();
    const relay = new InboundRelay(stream);
    await relay.relay(ref, message('3EB0A1'));
    await relay.relay(ref, message('3EB0A1'));
    await relay.relay(ref, message('3EB0A2'));
    await relay.relay(ref, message('3EB0A1'));

    expect(stream.publishes).toBe(4);
    expect(stream.stored.map((event) => event.eventId)).toEqual([
      inboundEventId(ref.accountId, ref.sessionId, '3EB0A1'),
      inboundEventId(ref.accountId, ref.sessionId, '3EB0A2'),
    ]);
    const shard = shardOf(ref.accountId, ref.sessionId);
    expect(stream.stored[0]).toMatchObject({
      subject: `jumbe.v1.events.${shard}.${ref.accountId}.${ref.sessionId}`,
      shard,
      payload: {
        event: 'message.received',
        customerId: ref.accountId,
        sessionId: ref.sessionId,
        message: expect.objectContaining({ id: '3EB0A1', text: 'text of 3EB0A1' }),
      },
    });
  });

  it('stores a redelivered reaction once too', async () => {
    const stream = new DeduplicatingPublisher();
    const relay = new InboundRelay(stream);
    const reaction = message('3EB0R1', {
      type: 'reactionMessage',
      text: '',
      change: { kind: 'reaction', messageId: '3EB0A1', emoji: '👍' },
    });
    await relay.relay(ref, reaction);
    await relay.relay(ref, reaction);
    expect(stream.stored).toHaveLength(1);
    expect(stream.stored[0]).toMatchObject({
      eventId: inboundEventId(ref.accountId, ref.sessionId, '3EB0R1'),
      payload: { event: 'message.reaction' },
    });
  });

  it('keeps the same message id of another session or another account as its own event', async () => {
    const stream = new DeduplicatingPublisher();
    const relay = new InboundRelay(stream);
    const otherSession = { ...ref, sessionId: 'branch' };
    const otherAccount = { ...ref, accountId: '22222222-2222-4222-8222-222222222222' };
    for (const where of [ref, otherSession, otherAccount]) await relay.relay(where, message('3EB0A1'));

    expect(
      stream.stored.map((event) => [event.eventId, (event.payload as { customerId: string }).customerId]),
    ).toEqual([
      [inboundEventId(ref.accountId, ref.sessionId, '3EB0A1'), ref.accountId],
      [inboundEventId(ref.accountId, 'branch', '3EB0A1'), ref.accountId],
      [inboundEventId(otherAccount.accountId, ref.sessionId, '3EB0A1'), otherAccount.accountId],
    ]);
  });

  it('stores nothing for a network message that is no event', async () => {
    const stream = new DeduplicatingPublisher();
    await new InboundRelay(stream).relay(ref, message('3EB0S1', { fromMe: true, chat: 'status@broadcast' }));
    expect(stream.publishes).toBe(0);
  });
});
