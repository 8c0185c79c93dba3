import { type LinkEvent, MemorySandboxStore, NetworkSendError, SandboxNetworkDriver } from '@jumbe/network';
import { observeNetworkDriver } from '@jumbe/telemetry';

/**
 * The worker's driver as sessionWorkerBindings composes it: the sandbox network behind the
 * tracing wrapper. A closed session must be gone from the network's side too, or the next
 * connection of that session (the same worker taking its shard back after a Redis blip) ends the
 * closed one again, and its `disconnected` lands in PostgreSQL over the session now connected.
 */
describe('the sandbox driver behind the tracing wrapper', () => {
  const ref = { accountId: 'acct-1', sessionId: 'shop' };

  function listener() {
    const links: LinkEvent[] = [];
    return {
      links,
      events: {
        onLink: (event: LinkEvent) => links.push(event),
        // Not exercised here: this test is about the link.
        onInbound: () => Promise.resolve(),
        onMessageStatus: () => undefined,
      },
    };
  }

  async function linkedSession(driver: SandboxNetworkDriver) {
    const first = listener();
    const session = await driver.open(ref, first.events, { linked: false });
    await new Promise((resolve) => setImmediate(resolve)); // the QR
    await driver.control().scan(ref, '255700000001');
    expect(first.links.map((event) => event.type)).toEqual(['qr', 'connected']);
    return { session, first };
  }

  it('closes a session for good: the network stops routing to it, and a new connection does not end it twice', async () => {
    const driver = observeNetworkDriver(
      new SandboxNetworkDriver(new MemorySandboxStore(), { reconnectDelayMs: 10 }),
    );
    const { session, first } = await linkedSession(driver);

    await session.close();
    await expect(driver.control().inbound(ref, { from: '255711111111', text: 'hi' })).rejects.toBeInstanceOf(
      NetworkSendError,
    );
    const second = listener();
    await driver.open(ref, second.events, { linked: true });
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(first.links).toEqual([
      { type: 'qr', qr: expect.any(String) },
      { type: 'connected', phoneNumber: '255700000001' },
      { type: 'disconnected', reason: 'shutdown' },
    ]);
    expect(second.links).toEqual([
      { type: 'connecting' },
      { type: 'connected', phoneNumber: '255700000001' },
    ]);
  });
});
