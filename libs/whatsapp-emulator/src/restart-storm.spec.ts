import './trust-preload';
import { DriverHarness, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { deviceJid, type LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/**
 * Issue 28, item 5: a server asking some sessions to restart (515) after every login must not
 * have them reconnect in a tight loop, taking the driver's launch turns from other sessions.
 */
describe('a storm of restart requests across sessions', () => {
  const STORMED = 3;
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let harness: DriverHarness;
  const stormed: LinkedDevice[] = [];
  let victim: LinkedDevice;

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start(), undefined, {
      // The other session's reconnect waits its backoff (0.5 to 1 s) in the launch queue's order.
      reconnectBaseMs: 1_000,
      reconnectMaxMs: 8_000,
      connectSpacingMs: 20,
      stableConnectionMs: 60_000,
    });
    for (let index = 0; index < STORMED; index += 1) {
      const phone = network.user(`25470000006${index}`, `Stormed ${index}`);
      stormed.push((await harness.link(network, phone, `stormed-${index}`)).device);
    }
    victim = (await harness.link(network, network.user('254700000069', 'Other'), 'other')).device;
  }, 90_000);
  afterAll(async () => {
    network.stopRestartStorm();
    await harness.closeAll();
    await emulator.stop();
  });

  it('the looping sessions back off, and another session’s reconnect is not starved', async () => {
    network.startRestartStorm(stormed);
    for (const device of stormed) network.endStream(device, 'restart');
    const loginsOf = (device: LinkedDevice, from = 0) =>
      network.logins.slice(from).filter((jid) => jid === deviceJid(device)).length;
    // The storm is on: every stormed session has been sent back at least three times.
    await until(() => stormed.every((device) => loginsOf(device) >= 3), 30_000);

    const dropAt = network.logins.length;
    expect(network.resetConnection(victim)).toBe(true);
    await until(() => loginsOf(victim, dropAt) === 1, 30_000);
    const before = network.logins.slice(dropAt, network.logins.indexOf(deviceJid(victim), dropAt));
    // While the other session waited for its turn, each looping session logged in at most once.
    for (const device of stormed)
      expect(before.filter((jid) => jid === deviceJid(device)).length).toBeLessThanOrEqual(1);
  }, 120_000);
});
