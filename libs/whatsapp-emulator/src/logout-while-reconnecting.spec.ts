import './trust-preload';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/** Issue 28, item 9: a logout between sockets must still unlink the device on the phone. */
describe('logout while the session is reconnecting', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000050', 'Hoteli');
  let harness: DriverHarness;
  let opened: OpenedSession;
  let device: LinkedDevice;

  beforeAll(async () => {
    // A long backoff: after the drop, the session waits a minute before its next socket.
    harness = new DriverHarness(await emulator.start(), undefined, {
      reconnectBaseMs: 60_000,
      reconnectMaxMs: 60_000,
    });
    ({ device, ...opened } = await harness.link(network, phone, 'logout'));
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('unlinks the device on the phone (its linked-device list loses it), then deletes the credentials', async () => {
    expect(network.linkedDevices(phone)).toEqual([device]);
    opened.links.length = 0;
    expect(network.resetConnection(device)).toBe(true);
    await until(() => opened.links.some((event) => event.type === 'connecting'));

    await opened.session.logout();

    expect(network.linkedDevices(phone)).toEqual([]);
    expect(opened.links[opened.links.length - 1]).toEqual({ type: 'disconnected', reason: 'logged_out' });
    expect(harness.credentials.count(opened.ref)).toBe(0);
  }, 40_000);

  it('a logout whose unlink WhatsApp refuses (403) still deletes the credentials', async () => {
    const other = network.user('254700000051', 'Hoteli Two');
    const { device: otherDevice, ...session } = await harness.link(network, other, 'logout-refused');
    session.links.length = 0;
    expect(network.resetConnection(otherDevice)).toBe(true);
    await until(() => session.links.some((event) => event.type === 'connecting'));
    network.refuseLogins(403);
    try {
      await session.session.logout();
    } finally {
      network.refuseLogins(null);
    }
    expect(network.refusedLogins).toBe(1);
    expect(harness.credentials.count(session.ref)).toBe(0);
  }, 40_000);
});
