import { type InboundNetworkMessage, SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
import { InboundInbox } from './inbound-inbox';
import { ProcessInboundOutbox } from './inbound-outbox';
import { SessionMemory } from './session-memory';

const REF = { accountId: '6f1c1d2e-8a4b-4c3d-9e8f-0a1b2c3d4e5f', sessionId: 'default' };

const message = (id: string): InboundNetworkMessage => ({
  id,
  chat: '254711111111@s.whatsapp.net',
  participant: null,
  senderPhoneJid: null,
  fromMe: false,
  pushName: null,
  type: 'conversation',
  text: `text of ${id}`,
  interaction: null,
  media: null,
  timestamp: new Date('2030-01-01T00:00:00Z'),
});

function inbox(outbox: ProcessInboundOutbox, secretKey: string, errors: unknown[] = []) {
  const cipher = new SecretBox(secretKey, SECRET_PURPOSES.networkCredentials);
  return new InboundInbox(REF, outbox, cipher, new SessionMemory(), {
    error: (...args: unknown[]) => void errors.push(args),
  });
}

describe('InboundInbox', () => {
  it('sets aside a message it can never open (sealed under another key) and delivers the ones after it', async () => {
    const outbox = new ProcessInboundOutbox();
    await inbox(outbox, 'the-key-before-a-rotation-0123456789').keep(message('OLD'));
    const errors: unknown[] = [];
    const current = inbox(outbox, 'the-key-after-the-rotation-987654321', errors);
    await current.keep(message('NEW'));

    const delivered: string[] = [];
    expect(
      await current.deliver(
        async (m) => void delivered.push(m.id),
        () => false,
      ),
    ).toBe(true);

    expect(delivered).toEqual(['NEW']);
    expect(errors).toHaveLength(1);
    expect(await outbox.oldest(REF, 10)).toEqual([]);
  });

  it('keeps a message the stream refused, in order, for the next try', async () => {
    const outbox = new ProcessInboundOutbox();
    const session = inbox(outbox, 'one-key-for-this-test-0123456789');
    await session.keep(message('A'));
    await session.keep(message('B'));
    await expect(
      session.deliver(
        async () => {
          throw new Error('the event stream is down');
        },
        () => false,
      ),
    ).rejects.toThrow('down');
    expect((await outbox.oldest(REF, 10)).map((entry) => entry.messageId)).toEqual(['A', 'B']);
  });
});
