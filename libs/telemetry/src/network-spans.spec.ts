import { observeNetworkDriver } from './network-spans';

/**
 * Shaped like our sessions: a session that ends sets its own phase and reports itself
 * (`onEnded(this)`), so that its driver forgets it.
 */
class FakeSession {
  phase: 'connected' | 'ended' = 'connected';
  readonly sent: string[] = [];

  constructor(private readonly onEnded: (session: FakeSession) => void) {}

  async send(message: { kind: string }): Promise<string> {
    if (this.phase === 'ended') throw new Error('the session is not connected');
    this.sent.push(message.kind);
    return `sent ${message.kind}`;
  }

  async close(): Promise<void> {
    this.phase = 'ended';
    this.onEnded(this);
  }
}

/** Shaped like our drivers: it keeps the sessions it opened until they end. */
class FakeDriver {
  readonly name = 'sandbox';
  readonly sessions = new Map<string, FakeSession>();

  async open(key: string): Promise<FakeSession> {
    const session = new FakeSession((ended) => {
      if (this.sessions.get(key) === ended) this.sessions.delete(key);
    });
    this.sessions.set(key, session);
    return session;
  }
}

describe('observeNetworkDriver', () => {
  it('hands back sessions whose sends still reach the session', async () => {
    const real = new FakeDriver();
    const session = await observeNetworkDriver(real).open('acct:shop');

    await expect(session.send({ kind: 'text' })).resolves.toBe('sent text');
    expect(real.sessions.get('acct:shop')!.sent).toEqual(['text']);
  });

  // Regression: the wrapper used to inherit from the session (Object.create), so `close()` ran
  // with the wrapper as `this`: the wrapper was marked ended, the session itself stayed connected
  // in its driver, and the driver's next open of that session ended the closed one a second time
  // (a stale `disconnected/connection_replaced` recorded over a connected session).
  it('runs every other method on the session itself: a closed session ends, and its driver forgets it', async () => {
    const real = new FakeDriver();
    const session = await observeNetworkDriver(real).open('acct:shop');
    const inDriver = real.sessions.get('acct:shop')!;

    await session.close();

    expect(inDriver.phase).toBe('ended');
    expect(real.sessions.has('acct:shop')).toBe(false);
    await expect(session.send({ kind: 'text' })).rejects.toThrow('not connected');
  });

  it('writes fields on the session itself, and the driver stays an instance of its class', async () => {
    const real = new FakeDriver();
    const driver = observeNetworkDriver(real);
    const session = await driver.open('acct:shop');

    session.phase = 'ended';

    expect(real.sessions.get('acct:shop')!.phase).toBe('ended');
    // The worker tells the sandbox from WhatsApp by the driver's class.
    expect(driver).toBeInstanceOf(FakeDriver);
    expect(driver.sessions).toBe(real.sessions);
  });
});
