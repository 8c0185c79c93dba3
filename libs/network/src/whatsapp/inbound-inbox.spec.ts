import { type InboundNetworkMessage, inboundMessageBinding, SECRET_PURPOSES, SecretBox } from '@jumbe/domain';
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

const cipherOf = (secretKey: string) => new SecretBox(secretKey, SECRET_PURPOSES.networkCredentials);

function inbox(outbox: ProcessInboundOutbox, secretKey: string, errors: unknown[] = []) {
  const cipher = cipherOf(secretKey);
  return new InboundInbox(REF, outbox, cipher, new SessionMemory(), {
    error: (...args: unknown[]) => void errors.push(args),
    debug: () => undefined,
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

  it('removes what the stream accepted before one it refused, so the next owner starts at the refused one', async () => {
    const outbox = new ProcessInboundOutbox();
    const session = inbox(outbox, 'one-key-for-this-test-0123456789');
    for (const id of ['A', 'B', 'C']) await session.keep(message(id));
    await expect(
      session.deliver(
        async (m) => {
          if (m.id === 'C') throw new Error('the event stream is down');
        },
        () => false,
      ),
    ).rejects.toThrow('down');
    expect((await outbox.oldest(REF, 10)).map((entry) => entry.messageId)).toEqual(['C']);

    const nextOwner = inbox(outbox, 'one-key-for-this-test-0123456789');
    expect((await deliverAll(nextOwner)).map((m) => m.id)).toEqual(['C']);
  });

  it('drains more than one read of the outbox in order, each message once', async () => {
    const outbox = new ProcessInboundOutbox();
    const session = inbox(outbox, 'one-key-for-this-test-0123456789');
    const ids = Array.from({ length: 120 }, (_, i) => `M${i}`);
    for (const id of ids) await session.keep(message(id));
    expect((await deliverAll(session)).map((m) => m.id)).toEqual(ids);
    expect(await outbox.oldest(REF, 10)).toEqual([]);
  });

  /** Everything `deliver` hands up, by id, until the outbox is empty. */
  async function deliverAll(session: InboundInbox): Promise<InboundNetworkMessage[]> {
    const delivered: InboundNetworkMessage[] = [];
    expect(
      await session.deliver(
        async (m) => void delivered.push(m),
        () => false,
      ),
    ).toBe(true);
    return delivered;
  }

  it('sets aside, with an error line, a row that opens but is no received message, and delivers the next one', async () => {
    const key = 'one-key-for-this-test-0123456789';
    const outbox = new ProcessInboundOutbox();
    // Sealed like a real row (same key, same binding), but in a shape no worker reads: an older
    // or damaged row whose JSON lacks the sender and the time.
    const bad = { id: 'BAD', chat: '254711111111@s.whatsapp.net', text: 'no sender, no time' };
    const sealed = cipherOf(key).sealBytes(
      Buffer.from(JSON.stringify(bad), 'utf8'),
      inboundMessageBinding(REF, 'BAD'),
    );
    await outbox.add(REF, 'BAD', sealed);
    await outbox.add(
      REF,
      'NOT-JSON',
      cipherOf(key).sealBytes(Buffer.from('{', 'utf8'), inboundMessageBinding(REF, 'NOT-JSON')),
    );
    const errors: unknown[] = [];
    const session = inbox(outbox, key, errors);
    await session.keep(message('GOOD'));

    const delivered = await deliverAll(session);

    expect(delivered.map((m) => m.id)).toEqual(['GOOD']);
    expect(delivered[0]).toEqual(message('GOOD'));
    expect(errors).toHaveLength(2);
    expect(JSON.stringify(errors[0])).toContain('BAD');
    expect(await outbox.oldest(REF, 10)).toEqual([]);
  });

  it('keeps a time the driver could not read unreadable (not 1970) through the outbox', async () => {
    const outbox = new ProcessInboundOutbox();
    const session = inbox(outbox, 'one-key-for-this-test-0123456789');
    await session.keep({ ...message('NO-TIME'), timestamp: new Date(Number.NaN) });
    const [delivered] = await deliverAll(session);
    expect(delivered?.id).toBe('NO-TIME');
    expect(Number.isNaN(delivered?.timestamp.getTime())).toBe(true);
  });

  it('carries what a change says through the outbox', async () => {
    const outbox = new ProcessInboundOutbox();
    const session = inbox(outbox, 'one-key-for-this-test-0123456789');
    const edit = { ...message('EDIT'), change: { kind: 'edit' as const, messageId: 'A', text: 'new' } };
    await session.keep(edit);
    expect(await deliverAll(session)).toEqual([edit]);
  });
  it('hands messages on in arrival order, and none from the first one not publishable yet', async () => {
    const outbox = new ProcessInboundOutbox();
    const session = inbox(outbox, 'one-key-for-this-test-0123456789');
    const socket = 1_764_000_000_000;
    // Stored as Baileys emitted them: the live one first, the backlog one that arrived before it after.
    await session.keep(message('LIVE'), undefined, { socket, position: 2 ** 40 });
    await session.keep(message('BACKLOG'), undefined, { socket, position: 1 });
    await session.keep(message('EARLIER SOCKET'), undefined, { socket: socket - 1, position: 2 ** 40 + 5 });

    const delivered: string[] = [];
    const round = (publishable: (arrival: { socket: number; position: number }) => boolean) =>
      session.deliver(
        async (m) => void delivered.push(m.id),
        () => false,
        () => ({ publishable }),
      );
    // The backlog is not complete: live arrivals of this socket wait (the caller kicks again).
    expect(await round((arrival) => arrival.socket !== socket || arrival.position < 2 ** 40)).toBe(true);
    expect(delivered).toEqual(['EARLIER SOCKET', 'BACKLOG']);
    expect((await outbox.oldest(REF, 10)).map((entry) => entry.messageId)).toEqual(['LIVE']);
    expect(await round(() => true)).toBe(true);
    expect(delivered).toEqual(['EARLIER SOCKET', 'BACKLOG', 'LIVE']);
  });

  it('holds what came after a message asked for again until its copy takes the place, or the wait is over', async () => {
    const outbox = new ProcessInboundOutbox();
    const session = inbox(outbox, 'one-key-for-this-test-0123456789');
    const key = (position: number) => ({ socket: 1, position });
    await session.awaitResend('ASKED', key(1), 5_000);
    await session.keep(message('NEXT'), undefined, key(2));
    await session.awaitResend('NEVER', key(3), 6_000);
    await session.keep(message('LAST'), undefined, key(4));
    const delivered: string[] = [];
    let now = 4_000;
    const round = () =>
      session.deliver(
        async (m) => void delivered.push(m.id),
        () => false,
        () => ({ publishable: (_arrival, until) => until === undefined || until <= now }),
      );

    await round();
    expect(delivered).toEqual([]);
    // The copy sent back, stored on a later socket: it takes the first copy's place.
    await session.keep(message('ASKED'), undefined, { socket: 2, position: 0 });
    await round();
    expect(delivered).toEqual(['ASKED', 'NEXT']);
    now = 6_000;
    await round();
    expect(delivered).toEqual(['ASKED', 'NEXT', 'LAST']);
    expect(await outbox.oldest(REF, 10)).toEqual([]);
  });
});
