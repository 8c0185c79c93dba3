import {
  type CommandReply,
  replyError,
  replyOk,
  sessionCommandSchema,
  UNREADABLE_COMMAND,
} from '@jumbe/contracts';
import type { JumbeConfig } from '@jumbe/config';
import { shardOf, shardSubject } from '@jumbe/domain';
import { InProcessMessageBus } from '@jumbe/messaging';
import { SessionCommandClient } from './session-command.client';

const ref = { accountId: 'acct-1', sessionId: 'main' };
const SUBJECT = shardSubject(shardOf(ref.accountId, ref.sessionId));
const SENT = { key: { remoteJid: '254712345678@s.whatsapp.net', fromMe: true, id: '3EB0ABC' } };

/**
 * A worker of the previous release, as its command handler reads commands: `v: 1` only, and a
 * message.send's message nested as `{ kind, body }`. What it cannot read it refuses unread.
 */
function previousReleaseWorker(payload: unknown, received: unknown[]): CommandReply {
  received.push(payload);
  const command = payload as { v?: unknown; type?: unknown; message?: { kind?: unknown; body?: unknown } };
  if (command.v !== 1 || (command.type === 'message.send' && typeof command.message?.body !== 'object')) {
    return replyError('validation_error', `${UNREADABLE_COMMAND}: v: Invalid input`);
  }
  return replyOk(command.type === 'message.send' ? SENT : null);
}

describe('SessionCommandClient', () => {
  let bus: InProcessMessageBus;
  let client: SessionCommandClient;
  beforeEach(() => {
    bus = new InProcessMessageBus();
    client = new SessionCommandClient(bus, { commandTimeoutMs: 2_000 } as JumbeConfig);
  });
  afterEach(() => bus.close());

  it('sends message.send at v2, the message flat, as this release’s workers read it', async () => {
    const received: unknown[] = [];
    await bus.serve(SUBJECT, async (payload) => {
      received.push(payload);
      return sessionCommandSchema.safeParse(payload).success
        ? replyOk(SENT)
        : replyError('validation_error', 'x');
    });
    const message = { kind: 'location' as const, to: '254712345678', latitude: -1.29, longitude: 36.82 };
    await expect(client.send({ ...ref, type: 'message.send', message })).resolves.toEqual(SENT);
    expect(received).toEqual([{ v: 2, ...ref, type: 'message.send', message }]);
  });

  it('during a rollout, sends v1 again to a worker of the previous release that cannot read v2', async () => {
    const received: unknown[] = [];
    await bus.serve(SUBJECT, async (payload) => previousReleaseWorker(payload, received));
    const message = { kind: 'text' as const, to: '254712345678', text: 'Habari', quotedMessageId: 'IN1' };
    await expect(client.send({ ...ref, type: 'message.send', message })).resolves.toEqual(SENT);
    expect(received).toEqual([
      { v: 2, ...ref, type: 'message.send', message },
      {
        v: 1,
        ...ref,
        type: 'message.send',
        message: { kind: 'text', body: { to: '254712345678', text: 'Habari', quotedMessageId: 'IN1' } },
      },
    ]);
  });

  it('sends nothing again after a refusal of the message itself, nor for another command', async () => {
    const received: unknown[] = [];
    await bus.serve(SUBJECT, async (payload) => {
      received.push(payload);
      return replyError('validation_error', 'Invalid message: /to: not a phone number');
    });
    const message = { kind: 'text' as const, to: '254712345678', text: 'Habari' };
    await expect(client.send({ ...ref, type: 'message.send', message })).rejects.toMatchObject({
      code: 'validation_error',
    });
    expect(received).toHaveLength(1);
    await expect(client.send({ ...ref, type: 'session.status' })).rejects.toMatchObject({
      code: 'validation_error',
    });
    expect(received).toHaveLength(2);
  });
});
