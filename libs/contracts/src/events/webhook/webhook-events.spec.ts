import type { z } from 'zod';
import { inboundMessageEvent } from './inbound-message-event';
import { type messageReceivedEventSchema, messageReceivedEvent } from './message-received.event';
import { sessionStatusEvent } from './session-status.event';
import { streamEventSchema, WEBHOOK_EVENT_SCHEMAS } from './webhook-events';
import { webhookTestEvent, webhookTestEventSchema } from './webhook-test.event';

/** True only when A and B are the same type (not merely assignable one way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// Compile-time: the event the worker builds is exactly the schema's shape (no copy of it).
const builtByTheWorker: Equal<
  ReturnType<typeof messageReceivedEvent>,
  z.output<typeof messageReceivedEventSchema>
> = true;

describe('webhook event schemas', () => {
  it('name every event type once, keyed by its `event` value', () => {
    expect(builtByTheWorker).toBe(true);
    for (const [name, schema] of Object.entries(WEBHOOK_EVENT_SCHEMAS)) {
      expect(schema.shape.event.value).toBe(name);
    }
  });

  it('accept the message.received event the worker builds from a network message', () => {
    const event = inboundMessageEvent(
      'acc',
      'default',
      {
        id: 'ABC',
        chat: '254711111111@s.whatsapp.net',
        participant: null,
        senderPhoneJid: null,
        fromMe: false,
        pushName: 'Amina',
        type: 'conversation',
        text: 'Habari',
        interaction: null,
        media: null,
        timestamp: new Date('2030-01-01T00:00:00Z'),
      },
      new Date('2030-01-01T00:00:01Z'),
    );
    expect(streamEventSchema.parse(event)).toEqual(event);
  });

  it('accept the webhook.test event the dispatcher builds', () => {
    const event = webhookTestEvent('acc', new Date('2030-01-01T00:00:00Z'));
    expect(webhookTestEventSchema.parse(event)).toEqual(event);
    expect(streamEventSchema.parse(event)).toEqual(event);
  });

  it('accept the session.status event the worker builds, and report no state before the network spoke', () => {
    const at = new Date('2030-01-01T00:00:00Z');
    const ended = sessionStatusEvent(
      'acc',
      'main',
      { state: 'disconnected', phoneNumber: null, reason: 'logged_out' },
      at,
    );
    expect(streamEventSchema.parse(ended)).toEqual({
      event: 'session.status',
      timestamp: '2030-01-01T00:00:00.000Z',
      customerId: 'acc',
      sessionId: 'main',
      session: { state: 'disconnected', phoneNumber: null, reason: 'logged_out' },
    });
    const linked = sessionStatusEvent(
      'acc',
      'main',
      { state: 'connected', phoneNumber: '2547', reason: null },
      at,
    );
    expect(streamEventSchema.parse(linked)).toEqual(linked);
    expect(
      sessionStatusEvent('acc', 'main', { state: 'starting', phoneNumber: null, reason: null }, at),
    ).toBeNull();
  });

  it('refuse a body that is not one of them', () => {
    expect(streamEventSchema.safeParse({ event: 'message.received', customerId: 'acc' }).success).toBe(false);
    expect(streamEventSchema.safeParse({ ...webhookTestEvent('a', new Date()), event: 'nope' }).success).toBe(
      false,
    );
  });
});
