import './trust-preload';
import { DriverHarness, until } from './driver-harness';
import { WhatsAppEmulator } from './emulator';
import { EmulatedNetwork } from './network';

describe('linking a device by QR against the emulator (real Baileys through the product driver)', () => {
  const emulator = new WhatsAppEmulator();
  const network = new EmulatedNetwork(emulator);
  let harness: DriverHarness;

  beforeAll(async () => {
    harness = new DriverHarness(await emulator.start());
  });
  afterEach(() => harness.closeAll());
  afterAll(() => emulator.stop());

  it('shows a QR, takes the signed pair-success, restarts (515), logs in and uploads its pre-keys', async () => {
    const { links } = await harness.open('qr-link');
    const qr = await until(() => links.find((event) => event.type === 'qr'));
    const phone = network.user('254700000001');

    const device = await network.scanQr(phone, qr.type === 'qr' ? qr.qr : '');

    const connected = await until(() => links.find((event) => event.type === 'connected'));
    expect(connected).toEqual({ type: 'connected', phoneNumber: '254700000001' });
    expect(links.map((event) => event.type)).toEqual(['qr', 'connecting', 'connected']);
    expect(device.device).toBe(1);
    expect(network.connectionOf(device)).toBeDefined();
    // Baileys uploads its initial batch of one-time pre-keys when the server has none.
    await until(() => device.preKeys.size > 0);
    expect(device.preKeys.size).toBeGreaterThanOrEqual(30);
  }, 30_000);
});
