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

  /** What web.whatsapp.com would tell as the current version (null: Baileys' pinned one). */
  let published: [number, number, number] | null = null;
  let versionFetches = 0;

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start(), undefined, {
      refusalBackoffBaseMs: 50,
      refusalBackoffMaxMs: 200,
      versionRefreshMinMs: 100,
      fetchVersion: async () => {
        versionFetches += 1;
        return published;
      },
    });
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

  it('a refusal storm (unknown stream errors, then 500) far past five tries: retried, connected again without a scan', async () => {
    opened.links.length = 0;
    const refusedBefore = network.refusedLogins;
    network.startRefusalStorm('unknown-stream-error');
    expect(network.endStream(device, 'unknown')).toBe(true);
    await until(() => network.refusedLogins - refusedBefore >= 6, 20_000);
    network.startRefusalStorm(500);
    await until(() => network.refusedLogins - refusedBefore >= 12, 20_000);
    network.stopRefusalStorm();
    await until(() => lastLink()?.type === 'connected' || lastLink()?.type === 'disconnected', 20_000);
    expect(types()).toEqual(['connecting', 'connected']);
    expect(harness.credentials.count(opened.ref)).toBeGreaterThan(0);
  }, 60_000);

  it('405 after a version bump: refetches the WhatsApp Web version and connects with it, never ending', async () => {
    opened.links.length = 0;
    const bumped = [2, 3001, 1] as const;
    network.requireClientVersion(bumped);
    const refusedBefore = network.refusedLogins;
    expect(network.endStream(device, 'restart')).toBe(true);
    await until(() => network.refusedLogins - refusedBefore >= 6, 20_000);
    const fetchesBefore = versionFetches;
    published = [...bumped];
    await until(() => lastLink()?.type === 'connected' || lastLink()?.type === 'disconnected', 20_000);
    network.requireClientVersion(null);
    expect(types()).toEqual(['connecting', 'connected']);
    expect(versionFetches).toBeGreaterThan(fetchesBefore);
  }, 60_000);

  it('the phone unlinks the device (401): logged_out, credentials deleted, the device can no longer log in', async () => {
    opened.links.length = 0;
    network.unlink(device);
    await until(() => types().includes('disconnected'));
    expect(lastLink()).toEqual({ type: 'disconnected', reason: 'logged_out' });
    await until(() => harness.credentials.count(opened.ref) === 0);
    expect(network.linkedDevices(phone)).toEqual([]);
  }, 20_000);
});
