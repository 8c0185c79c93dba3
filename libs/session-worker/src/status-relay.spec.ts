import { streamEventSchema } from '@jumbe/contracts';
import type { MessageStatusReport } from '@jumbe/network';
import { StatusRelay } from './status-relay';
import { RecordingPublisher } from './test-support/recording-publisher';

describe('StatusRelay: message.status', () => {
  const ref = { accountId: 'acc', sessionId: 'main' };
  const report = (status: MessageStatusReport['status'], messageId = '3EB0A'): MessageStatusReport => ({
    messageId,
    to: '120363000000000001@g.us',
    status,
    at: new Date('2030-01-01T00:00:00Z'),
  });

  it("collapses many devices' receipts to one event per step, never going back", async () => {
    const publisher = new RecordingPublisher();
    const relay = new StatusRelay(publisher);
    for (const status of [
      'server_ack',
      'delivered',
      'delivered',
      'read',
      'delivered',
      'read',
      'played',
    ] as const)
      await relay.messageStatus(ref, report(status));
    await relay.messageStatus(ref, report('delivered', '3EB0B'));

    expect(
      publisher.events.map((e) => (e.payload as { message: { id: string; status: string } }).message),
    ).toEqual([
      expect.objectContaining({ id: '3EB0A', status: 'server_ack' }),
      expect.objectContaining({ id: '3EB0A', status: 'delivered' }),
      expect.objectContaining({ id: '3EB0A', status: 'read' }),
      expect.objectContaining({ id: '3EB0A', status: 'played' }),
      expect.objectContaining({ id: '3EB0B', status: 'delivered' }),
    ]);
    for (const event of publisher.events)
      expect(streamEventSchema.safeParse(event.payload).success).toBe(true);
    expect(publisher.events[0]).toMatchObject({
      eventId: 'acc:main:message.status:3EB0A:server_ack',
      subject: expect.stringMatching(/^jumbe\.v1\.events\.\d+\.acc\.main$/),
      payload: {
        event: 'message.status',
        customerId: 'acc',
        sessionId: 'main',
        message: {
          id: '3EB0A',
          to: '120363000000000001@g.us',
          status: 'server_ack',
          at: '2030-01-01T00:00:00.000Z',
        },
      },
    });
  });

  it('never goes back, nor repeats a step, while the subscription filter is still answering', async () => {
    const publisher = new RecordingPublisher();
    const slowFilter = {
      wants: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 10)),
    };
    const relay = new StatusRelay(publisher, slowFilter);
    // A contact's phone reads the message; its other device's late receipts come in meanwhile.
    await Promise.all(
      (['read', 'delivered', 'read'] as const).map((status) => relay.messageStatus(ref, report(status))),
    );

    expect(
      publisher.events.map((e) => (e.payload as { message: { status: string } }).message.status),
    ).toEqual(['read']);
  });

  it('retries a publish the stream refused, then gives up with the error', async () => {
    let refusals = 2;
    const stored: unknown[] = [];
    const relay = new StatusRelay(
      {
        publish: async (event) => {
          if (refusals-- > 0) throw new Error('stream unavailable');
          stored.push(event);
        },
      },
      undefined,
      { tries: 3, retryDelayMs: 1 },
    );
    await relay.messageStatus(ref, report('read'));
    expect(stored).toHaveLength(1);
    refusals = 3;
    await expect(relay.messageStatus(ref, report('read', '3EB0C'))).rejects.toThrow('stream unavailable');
  });
});

describe('StatusRelay: message.poll_vote', () => {
  const ref = { accountId: 'acc', sessionId: 'main' };
  const vote = {
    id: '3A0VOTE1',
    pollId: '3EB0POLL',
    chat: '254712345678@s.whatsapp.net',
    voter: '100000000000001@lid',
    voterPhone: '254712345678',
    selectedOptions: ['Pilau'],
    votedAt: new Date('2030-01-01T00:00:00Z'),
  };

  it('publishes a vote once per vote message, on the session subject, valid for the stream', async () => {
    const publisher = new RecordingPublisher();
    const relay = new StatusRelay(publisher);
    await relay.pollVoted(ref, vote);

    expect(publisher.events).toEqual([
      expect.objectContaining({
        eventId: 'acc:main:message.poll_vote:3A0VOTE1',
        subject: expect.stringMatching(/^jumbe\.v1\.events\.\d+\.acc\.main$/),
        payload: expect.objectContaining({
          event: 'message.poll_vote',
          vote: {
            id: '3A0VOTE1',
            pollId: '3EB0POLL',
            chat: '254712345678@s.whatsapp.net',
            from: '254712345678',
            replyTo: '254712345678',
            selectedOptions: ['Pilau'],
            votedAt: '2030-01-01T00:00:00.000Z',
          },
        }),
      }),
    ]);
    expect(streamEventSchema.safeParse(publisher.events[0]?.payload).success).toBe(true);
  });

  it('names the voter by their id when the phone number is unknown, and publishes nothing unsubscribed', async () => {
    const publisher = new RecordingPublisher();
    await new StatusRelay(publisher).pollVoted(ref, { ...vote, voterPhone: null });
    expect(publisher.events[0]?.payload).toMatchObject({ vote: { from: '100000000000001@lid' } });

    const unsubscribed = new RecordingPublisher();
    const onlyReceived = { wants: async (_account: string, type: string) => type === 'message.received' };
    await new StatusRelay(unsubscribed, onlyReceived).pollVoted(ref, vote);
    expect(unsubscribed.events).toEqual([]);
  });
});
