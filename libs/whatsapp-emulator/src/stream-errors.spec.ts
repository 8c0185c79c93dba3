import './trust-preload';
import { DriverHarness, type OpenedSession, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import type { LinkedDevice } from './linked-device';
import { EmulatedNetwork } from './network';

/** README "How each close of WhatsApp's ends", checked against real Baileys. One linked device. */
describe('stream errors and refusals against a linked session', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  const phone = network.user('254700000030', 'Kiosk');
  let harness: DriverHarness;
  let opened: OpenedSession;
  let device: LinkedDevice;

  const types = () => opened.links.map((event) => event.type);
  const lastLink = () => opened.links[opened.links.length - 1];

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start());
    ({ device, ...opened } = await harness.link(network, phone, 'errors'));
  }, 30_000);
  afterAll(async () => {
    await harness.closeAll();
    await emulator.stop();
  });

  it('515 restart required: reconnects at once with the same credentials', async () => {
    opened.links.length = 0;
    expect(network.endStream(device, 'restart')).toBe(true);
    await until(() => types().includes('connected'));
    expect(types()).toEqual(['connecting', 'connected']);
  }, 20_000);

  it('440 conflict: ends connection_replaced, keeps the credentials, and a new start resumes without a scan', async () => {
    opened.links.length = 0;
    network.endStream(device, 'conflict');
    await until(() => types().includes('disconnected'));
    expect(lastLink()).toEqual({ type: 'disconnected', reason: 'connection_replaced' });
    expect(harness.credentials.count(opened.ref)).toBeGreaterThan(0);

    opened = await harness.open('errors', true);
    await until(() => opened.links.find((event) => event.type === 'connected'));
    expect(types()).not.toContain('qr');
  }, 20_000);

  it('405 on every login: retries, then ends client_outdated after five refusals, credentials kept', async () => {
    opened.links.length = 0;
    const refusedBefore = network.refusedLogins;
    network.refuseLogins(405);
    network.endStream(device, 'restart');
    await until(() => lastLink()?.type === 'disconnected', 20_000);
    network.refuseLogins(null);
    expect(lastLink()).toEqual({ type: 'disconnected', reason: 'client_outdated' });
    expect(network.refusedLogins - refusedBefore).toBe(5);
    expect(harness.credentials.count(opened.ref)).toBeGreaterThan(0);

    opened = await harness.open('errors', true);
    await until(() => opened.links.find((event) => event.type === 'connected'));
  }, 30_000);

  it('the phone unlinks the device (401): logged_out, credentials deleted, the device can no longer log in', async () => {
    opened.links.length = 0;
    network.unlink(device);
    await until(() => types().includes('disconnected'));
    expect(lastLink()).toEqual({ type: 'disconnected', reason: 'logged_out' });
    await until(() => harness.credentials.count(opened.ref) === 0);
    expect(network.linkedDevices(phone)).toEqual([]);
  }, 20_000);
});
